package containertest_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// The in-cluster path of a pod's service-account token, CA and namespace
// (rest.InClusterConfig reads the first two).
const saMountPath = "/var/run/secrets/kubernetes.io/serviceaccount"

// imageUser is the image's user (hack/release: a user that exists nowhere).
const imageUser = "65532:65532"

// podman runs containers with runc in a storage of its own (a temporary
// directory), so the test leaves no image, container or mount behind and
// shares nothing with the machine's other podman users.
type podman struct {
	bin    string
	dir    string
	global []string
	// ulimits are the explicit limits every container gets: podman's default
	// (nofile 1048576) is above what root without CAP_SYS_RESOURCE may set on
	// the machines CI runs on, and runc then refuses to start the container.
	ulimits []string
}

// runtimeMissing says why no container runtime can be had here, or "".
// podman is looked for on PATH; runc also where podman looks for it (its
// containers.conf's runtime paths: Debian puts runc in /usr/sbin, which a
// non-login PATH may lack).
func runtimeMissing() string {
	if _, err := exec.LookPath("podman"); err != nil {
		return "podman not found on PATH (.ci/run installs podman and runc: apt-get install podman runc)"
	}
	if _, err := exec.LookPath("runc"); err == nil {
		return ""
	}
	for _, dir := range []string{"/usr/local/bin", "/usr/local/sbin", "/usr/bin", "/usr/sbin", "/bin", "/sbin"} {
		if fi, err := os.Stat(filepath.Join(dir, "runc")); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return ""
		}
	}
	return "runc not found (.ci/run installs podman and runc: apt-get install podman runc)"
}

// newPodman finds podman and runc, or skips t where either cannot be had
// (the only reason this test skips). crun is not used: on a cgroup v1 host
// it refuses ("cgroups in hybrid mode not supported").
func newPodman(t *testing.T) *podman {
	t.Helper()
	if why := runtimeMissing(); why != "" {
		t.Skipf("container test: SKIPPED, no container runtime: %s", why)
	}
	bin, _ := exec.LookPath("podman")
	dir, err := os.MkdirTemp("", "recover-containertest-")
	if err != nil {
		t.Fatal(err)
	}
	p := &podman{bin: bin, dir: dir, global: []string{
		"--root", filepath.Join(dir, "storage"), "--runroot", filepath.Join(dir, "run"), "--tmpdir", filepath.Join(dir, "tmp"),
		"--runtime", "runc", "--cgroup-manager", "cgroupfs", "--events-backend", "none",
	}}
	var nofile syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &nofile); err != nil {
		t.Fatal(err)
	}
	n := min(nofile.Max, 65536)
	// nproc: a fixed 4096, far above what recover starts; runc refused
	// values close to the host's hard limit here.
	p.ulimits = []string{"--ulimit", fmt.Sprintf("nofile=%d:%d", n, n), "--ulimit", "nproc=4096:4096"}
	t.Cleanup(func() {
		_, _ = p.cmd("rm", "--all", "--force", "--time", "0").CombinedOutput()
		_, _ = p.cmd("rmi", "--all", "--force").CombinedOutput()
		_ = os.RemoveAll(dir)
	})
	out, err := p.cmd("info", "--format", "{{.Host.OCIRuntime.Version}}").CombinedOutput()
	if err != nil {
		t.Fatalf("podman is installed but does not work: %v\n%s", err, out)
	}
	runc, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	t.Logf("podman %s, %s", p.version(), runc)
	return p
}

func (p *podman) cmd(args ...string) *exec.Cmd {
	return exec.Command(p.bin, append(append([]string(nil), p.global...), args...)...)
}

func (p *podman) version() string {
	out, _ := exec.Command(p.bin, "--version").Output()
	return strings.TrimPrefix(strings.TrimSpace(string(out)), "podman version ")
}

// must runs podman and returns its stdout, failing t on an error.
func (p *podman) must(t *testing.T, args ...string) string {
	t.Helper()
	var out, errOut bytes.Buffer
	c := p.cmd(args...)
	c.Stdout, c.Stderr = &out, &errOut
	if err := c.Run(); err != nil {
		t.Fatalf("podman %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// loadImage pulls the OCI layout make image wrote (RECOVER_IMAGE_LAYOUT, or
// make image run here for the host's platform) into the test's storage and
// returns the image ID.
func (p *podman) loadImage(t *testing.T) string {
	t.Helper()
	layout := os.Getenv("RECOVER_IMAGE_LAYOUT")
	if layout == "" {
		root, err := kubetest.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		layout = filepath.Join(p.dir, "image")
		c := exec.Command("make", "--no-print-directory", "image", "IMAGE_PLATFORMS=linux/"+runtime.GOARCH, "IMAGE_OUT="+layout)
		c.Dir = root
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("make image: %v\n%s", err, out)
		}
	}
	ref, err := layoutRef(layout)
	if err != nil {
		t.Fatal(err)
	}
	id := strings.TrimSpace(p.must(t, "pull", "--quiet", "oci:"+layout+":"+ref))
	// The image is what hack/release says it is: its user, its entrypoint.
	var cfg []struct {
		Config struct {
			User       string
			Entrypoint []string
		}
	}
	if err := json.Unmarshal([]byte(p.must(t, "image", "inspect", id)), &cfg); err != nil || len(cfg) != 1 {
		t.Fatalf("podman image inspect %s: %v", id, err)
	}
	if cfg[0].Config.User != imageUser || strings.Join(cfg[0].Config.Entrypoint, " ") != "/recover" {
		t.Fatalf("the image runs %v as %q, want /recover as %s", cfg[0].Config.Entrypoint, cfg[0].Config.User, imageUser)
	}
	t.Logf("image %s (oci:%s:%s)", id[:12], layout, ref)
	return id
}

// layoutRef is the tag index.json gives the layout's one image index.
func layoutRef(dir string) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, "index.json"))
	if err != nil {
		return "", fmt.Errorf("%w (RECOVER_IMAGE_LAYOUT names the directory make image writes, dist/image)", err)
	}
	var idx struct {
		Manifests []struct {
			Annotations map[string]string `json:"annotations"`
		} `json:"manifests"`
	}
	if err := json.Unmarshal(b, &idx); err != nil {
		return "", fmt.Errorf("%s: %w", dir, err)
	}
	if len(idx.Manifests) != 1 || idx.Manifests[0].Annotations["org.opencontainers.image.ref.name"] == "" {
		return "", fmt.Errorf("%s/index.json: want one tagged image index, as make image writes", dir)
	}
	return idx.Manifests[0].Annotations["org.opencontainers.image.ref.name"], nil
}

// container is how a container runs recover: as the apply Job's pod does
// (apply/fleet/export's job: non-root, a read-only root with no writable
// volume, every capability dropped, no privilege escalation), on the host's
// network (the API server listens on loopback), named name with the hostname
// of a pod, and with volumes (host:container:ro) and environment.
type container struct {
	name    string
	volumes []string
	env     []string
}

// runArgs are podman run's arguments for c, running image with args.
func (p *podman) runArgs(c container, image string, args ...string) []string {
	// No --rm: podman run then reads the exit code of a killed container
	// from its own records, not racing the container's removal; remove does.
	out := []string{"run", "--name", c.name, "--hostname", c.name,
		"--network", "host", "--user", imageUser,
		// No tmpfs either: the Job's pod has no emptyDir, /tmp is read-only too.
		"--read-only", "--read-only-tmpfs=false",
		"--cap-drop", "all", "--security-opt", "no-new-privileges"}
	out = append(out, p.ulimits...)
	for _, v := range c.volumes {
		out = append(out, "--volume", v)
	}
	for _, e := range c.env {
		out = append(out, "--env", e)
	}
	return append(append(out, image), args...)
}

// run runs recover in c to its end and returns its exit code, stdout and stderr.
func (p *podman) run(t *testing.T, c container, image string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	cmd := p.cmd(p.runArgs(c, image, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	p.remove(c.name)
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), out.String(), errOut.String()
	case err != nil:
		t.Fatal(err)
	}
	return 0, out.String(), errOut.String()
}

// remove removes the stopped container name.
func (p *podman) remove(name string) {
	_, _ = p.cmd("rm", "--force", "--time", "0", name).CombinedOutput()
}

// writeFiles writes files (name to content) into a new directory under the
// test's storage that the container's user can read (the mount's source:
// an absolute host path) and returns it.
func (p *podman) writeFiles(t *testing.T, name string, files map[string][]byte) string {
	t.Helper()
	dir := filepath.Join(p.dir, "volumes", name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	// MkdirAll leaves the umask's bits; the user 65532 must enter it.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, b := range files {
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
