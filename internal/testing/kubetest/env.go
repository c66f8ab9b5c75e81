package kubetest

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/hex"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options choose what a control plane runs besides etcd and kube-apiserver.
type Options struct {
	// Workloads also starts kube-controller-manager (deployment, replicaset,
	// daemonset, job, serviceaccount, garbage-collector, namespace, disruption and
	// CSR signing controllers; see WorkloadControllers), kube-scheduler and kwok,
	// so that Deployments roll out to Running pods on nodes created with
	// NewFakeNode, PodDisruptionBudgets get their status, and approved
	// certificate signing requests are issued.
	Workloads bool
	// SkipCRDs leaves the OpenShift CRDs out (for tests of a plain Kubernetes cluster).
	SkipCRDs bool
}

// LimitedUser is a user known to the API server that belongs to no group, so RBAC
// denies it everything a test does not grant explicitly.
const LimitedUser = "limited"

// Env is one running control plane.
type Env struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// Kubeconfig is the path of a kubeconfig file for Config.
	Kubeconfig string
	// Dir is the temporary directory with data, certificates and logs.
	Dir string

	opts    Options
	bins    Binaries
	etcdURL string
	tokens  map[string]string
	// caData is the CA of kube-apiserver's serving certificate (its --cert-dir).
	caData []byte
	root   bool // owns etcd and Dir

	mu      sync.Mutex
	procs   []*process
	apiProc *process
	fresh   []*Env
	stopped bool
	// workloads are the workload controllers' processes (also in procs).
	workloads []*process
	reusePool
}

// Start builds nothing: it starts a control plane from the cached binaries. Call Stop
// when done (Main does).
func Start(opts Options) (*Env, error) {
	bins, err := FindBinaries()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "recover-kubetest-")
	if err != nil {
		return nil, err
	}
	e := &Env{Dir: dir, opts: opts, bins: bins, root: true}
	if err := e.start(); err != nil {
		e.Stop()
		return nil, err
	}
	return e, nil
}

func (e *Env) start() error {
	ports, err := freePorts(2)
	if err != nil {
		return err
	}
	e.etcdURL = "http://127.0.0.1:" + strconv.Itoa(ports[0])
	etcd, err := startProcess(e.Dir, "etcd", e.bins.Path("etcd"), []string{
		"--data-dir", filepath.Join(e.Dir, "etcd"),
		"--listen-client-urls", e.etcdURL,
		"--advertise-client-urls", e.etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:" + strconv.Itoa(ports[1]),
		"--initial-advertise-peer-urls", "http://127.0.0.1:" + strconv.Itoa(ports[1]),
		"--initial-cluster", "default=http://127.0.0.1:" + strconv.Itoa(ports[1]),
		"--unsafe-no-fsync",
		"--log-level", "warn",
	}, nil)
	if err != nil {
		return err
	}
	e.procs = append(e.procs, etcd)
	if err := e.writeSecrets(); err != nil {
		return err
	}
	return e.startAPIServer("/registry")
}

// writeSecrets writes the service-account key pair and the static token file.
func (e *Env) writeSecrets() error {
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return err
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	pub, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		return err
	}
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub})
	if err := os.WriteFile(filepath.Join(e.Dir, "sa.key"), keyPEM, 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(e.Dir, "sa.pub"), pubPEM, 0o600); err != nil {
		return err
	}
	if err := writeSigningCA(e.Dir); err != nil {
		return err
	}
	e.tokens = map[string]string{"admin": randomToken(), LimitedUser: randomToken()}
	lines := fmt.Sprintf("%s,admin,admin-uid,\"system:masters\"\n%s,%s,limited-uid\n",
		e.tokens["admin"], e.tokens[LimitedUser], LimitedUser)
	return os.WriteFile(filepath.Join(e.Dir, "tokens.csv"), []byte(lines), 0o600)
}

func randomToken() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// startAPIServer starts kube-apiserver on the shared etcd with the given key prefix,
// waits for /readyz, installs the CRDs and, when asked, the workload controllers.
func (e *Env) startAPIServer(prefix string) error {
	ports, err := freePorts(1)
	if err != nil {
		return err
	}
	certDir := filepath.Join(e.Dir, "certs-"+strings.Trim(strings.ReplaceAll(prefix, "/", "-"), "-"))
	api, err := startProcess(e.Dir, "kube-apiserver"+strings.ReplaceAll(strings.TrimPrefix(prefix, "/registry"), "/", "-"), e.bins.Path("kube-apiserver"), []string{
		"--etcd-servers", e.etcdURL,
		"--etcd-prefix", prefix,
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		"--secure-port", strconv.Itoa(ports[0]),
		"--cert-dir", certDir,
		"--service-account-issuer", "https://kubernetes.default.svc",
		"--service-account-key-file", filepath.Join(e.Dir, "sa.pub"),
		"--service-account-signing-key-file", filepath.Join(e.Dir, "sa.key"),
		"--token-auth-file", filepath.Join(e.Dir, "tokens.csv"),
		"--authorization-mode", "RBAC",
		"--service-cluster-ip-range", "10.96.0.0/16",
		"--endpoint-reconciler-type", "none",
		// kwok's nodes would otherwise start with a not-ready taint nobody removes.
		"--disable-admission-plugins", "TaintNodesByCondition",
		// OpenShift runs privileged operator pods (etcd-quorum-guard, the
		// machine-config daemons); the default refuses them.
		"--allow-privileged=true",
		// As OpenShift's kube-apiserver (cluster-kube-apiserver-operator
		// bindata/assets/config/defaultconfig.yaml): kubelets are reached at their
		// InternalIP, their serving certificates checked against the kubelet CA
		// (here the cluster signing CA, which kube-controller-manager signs
		// kubelet-serving CSRs with). pods/log then reaches the simulator's
		// kubelet server.
		"--kubelet-preferred-address-types", "InternalIP",
		"--kubelet-certificate-authority", e.SigningCAPath(),
		"--v", "1",
	}, nil)
	if err != nil {
		return err
	}
	e.procs = append(e.procs, api)
	e.apiProc = api
	host := "https://127.0.0.1:" + strconv.Itoa(ports[0])
	e.Config = &rest.Config{
		Host:            host,
		BearerToken:     e.tokens["admin"],
		TLSClientConfig: rest.TLSClientConfig{Insecure: true},
		QPS:             1000,
		Burst:           2000,
	}
	if err := e.waitReady(60 * time.Second); err != nil {
		return err
	}
	e.Kubeconfig = filepath.Join(e.Dir, "kubeconfig"+strings.ReplaceAll(strings.TrimPrefix(prefix, "/registry"), "/", "-"))
	// kube-apiserver wrote its self-signed serving certificate, with the CA
	// that signed it, into --cert-dir before it served: the kubeconfigs carry
	// that CA instead of skipping verification (issue 34: the lab's users had
	// to dig it out of the certs directory).
	if e.caData, err = os.ReadFile(filepath.Join(certDir, "apiserver.crt")); err != nil {
		return fmt.Errorf("kube-apiserver's serving certificate: %w", err)
	}
	if err := writeKubeconfig(e.Kubeconfig, host, e.caData, e.tokens["admin"], "admin"); err != nil {
		return err
	}
	if !e.opts.SkipCRDs {
		if err := InstallOpenShiftCRDs(context.Background(), e.Config); err != nil {
			return err
		}
	}
	if e.opts.Workloads {
		if err := e.startWorkloadControllers(); err != nil {
			return err
		}
	}
	return nil
}

// waitReady polls /readyz until it answers ok, failing early when the process exits.
func (e *Env) waitReady(timeout time.Duration) error {
	transport, err := rest.TransportFor(e.Config)
	if err != nil {
		return err
	}
	client := &http.Client{Transport: transport, Timeout: 2 * time.Second}
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		if e.apiProc.exited() {
			return fmt.Errorf("kube-apiserver exited during start-up; last log lines:\n%s", e.apiProc.tail(20))
		}
		resp, err := client.Get(e.Config.Host + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("kube-apiserver was not ready after %s; last log lines:\n%s", timeout, e.apiProc.tail(20))
}

// writeKubeconfig writes a kubeconfig with one context for a token user, the
// server verified with caData.
func writeKubeconfig(path, host string, caData []byte, token, user string) error {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["kubetest"] = &clientcmdapi.Cluster{Server: host, CertificateAuthorityData: caData}
	cfg.AuthInfos[user] = &clientcmdapi.AuthInfo{Token: token}
	cfg.Contexts["kubetest"] = &clientcmdapi.Context{Cluster: "kubetest", AuthInfo: user}
	cfg.CurrentContext = "kubetest"
	return clientcmd.WriteToFile(*cfg, path)
}

// UserConfig returns a client configuration for LimitedUser.
func (e *Env) UserConfig(user string) (*rest.Config, error) {
	token, ok := e.tokens[user]
	if !ok {
		return nil, fmt.Errorf("kubetest: unknown user %q (known: admin, %s)", user, LimitedUser)
	}
	cfg := rest.CopyConfig(e.Config)
	cfg.BearerToken = token
	return cfg, nil
}

// UserKubeconfig writes a kubeconfig for user into the environment's directory and
// returns its path.
func (e *Env) UserKubeconfig(user string) (string, error) {
	cfg, err := e.UserConfig(user)
	if err != nil {
		return "", err
	}
	path := e.Kubeconfig + "-" + user
	return path, writeKubeconfig(path, cfg.Host, e.caData, cfg.BearerToken, user)
}

// Fresh starts another kube-apiserver (and workload controllers, if this environment
// runs them) on the same etcd under a new key prefix: an empty cluster with the CRDs
// installed, for tests that need their own singletons. It stops with the parent.
func (e *Env) Fresh() (*Env, error) {
	// The prefix is reserved under the lock, so that servers started at the
	// same time never share one.
	child := &Env{Dir: e.Dir, opts: e.opts, bins: e.bins, etcdURL: e.etcdURL, tokens: e.tokens}
	e.mu.Lock()
	e.fresh = append(e.fresh, child)
	n := len(e.fresh)
	e.mu.Unlock()
	if err := child.startAPIServer(fmt.Sprintf("/registry/fresh%d", n)); err != nil {
		child.Stop()
		return nil, err
	}
	return child, nil
}

// Stop terminates every process of the environment and removes its directory.
// It is safe to call more than once.
func (e *Env) Stop() {
	if e == nil {
		return
	}
	e.mu.Lock()
	if e.stopped {
		e.mu.Unlock()
		return
	}
	e.stopped = true
	fresh := e.fresh
	procs := e.procs
	e.mu.Unlock()
	for _, f := range fresh {
		f.Stop()
	}
	// Stop in reverse start order: controllers, then the apiserver, then etcd.
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].stop(10 * time.Second)
	}
	if e.root && e.Dir != "" {
		_ = os.RemoveAll(e.Dir)
	}
}

// ErrNotRunning is returned by Check when the API server does not answer.
var ErrNotRunning = errors.New("kube-apiserver is not running")

// Check probes the API server once and returns ErrNotRunning, wrapped with the reason,
// when it does not answer /readyz.
func (e *Env) Check(ctx context.Context) error {
	if e == nil || e.Config == nil {
		return fmt.Errorf("%w: the control plane was never started", ErrNotRunning)
	}
	transport, err := rest.TransportFor(e.Config)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, e.Config.Host+"/readyz", nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: transport, Timeout: 2 * time.Second}).Do(req)
	if err != nil {
		return fmt.Errorf("%w at %s: %v", ErrNotRunning, e.Config.Host, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%w at %s: /readyz answered %s", ErrNotRunning, e.Config.Host, resp.Status)
	}
	return nil
}

// PIDs returns the process IDs of the environment's own processes (not those of
// environments made with Fresh), for tests that check nothing is left behind.
func (e *Env) PIDs() []int {
	e.mu.Lock()
	defer e.mu.Unlock()
	var pids []int
	for _, p := range e.procs {
		if p.cmd.Process != nil {
			pids = append(pids, p.cmd.Process.Pid)
		}
	}
	return pids
}
