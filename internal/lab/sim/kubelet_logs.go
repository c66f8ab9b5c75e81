package sim

import (
	"bufio"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/big"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

// The simulator's kubelets serve their pods' logs as a kubelet does: the API
// server's pods/log proxies GET /containerLogs/<ns>/<pod>/<container> to the
// node's status.daemonEndpoints.kubeletEndpoint port at its InternalIP (OpenShift
// runs kube-apiserver with --kubelet-preferred-address-types=InternalIP and
// --kubelet-certificate-authority; kubetest does the same). One HTTPS server on
// 127.0.0.1 serves every node whose InternalIP is a loopback address; its
// certificate is signed by the CA the API server trusts for kubelets
// (Options.KubeletCA). A scenario with podLogs: true gives its nodes that
// address at Load.
//
// The logs are the must-gather's (namespaces/<ns>/pods/<pod>/<c>/<c>/logs/
// {current,previous}.log, read when asked for, never held), and the lines the
// fake controllers write as they act (a machine-config daemon's refused
// evictions), kept in memory up to maxLogLines per container.

// KubeletCA is the CA kube-apiserver trusts for kubelets' serving certificates
// (--kubelet-certificate-authority), PEM files: kubetest's cluster signing CA.
type KubeletCA struct {
	CertFile, KeyFile string
}

// maxLogLines bounds the lines a fake controller appends to one container log.
const maxLogLines = 10000

// podLogs are the logs the simulated kubelets serve.
type podLogs struct {
	mu    sync.Mutex
	files map[string]string   // "<ns>/<pod>/<container>[/previous]" -> must-gather file
	lines map[string][]string // appended by the fake controllers, with the kubelet's time
}

func newPodLogs() *podLogs {
	return &podLogs{files: map[string]string{}, lines: map[string][]string{}}
}

func logKey(ns, pod, container string, previous bool) string {
	k := ns + "/" + pod + "/" + container
	if previous {
		k += "/previous"
	}
	return k
}

// loadMustGather finds the logs of a must-gather.
func (p *podLogs) loadMustGather(dir string) error {
	root := filepath.Join(dir, "namespaces")
	if _, err := os.Stat(root); err != nil {
		return nil
	}
	return filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		parts := strings.Split(filepath.ToSlash(rel), "/")
		// <ns>/pods/<pod>/<c>/<c>/logs/<file>
		if len(parts) != 7 || parts[1] != "pods" || parts[3] != parts[4] || parts[5] != "logs" {
			return nil
		}
		var previous bool
		switch parts[6] {
		case "current.log":
		case "previous.log":
			previous = true
		default:
			return nil
		}
		p.mu.Lock()
		p.files[logKey(parts[0], parts[2], parts[3], previous)] = path
		p.mu.Unlock()
		return nil
	})
}

// append adds a line a fake controller wrote.
func (p *podLogs) append(ns, pod, container string, t time.Time, line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	k := logKey(ns, pod, container, false)
	l := append(p.lines[k], t.UTC().Format(time.RFC3339Nano)+" "+line)
	if len(l) > maxLogLines {
		l = l[len(l)-maxLogLines:]
	}
	p.lines[k] = l
}

// serve writes one container's log as the kubelet's containerLogs handler does:
// each line prefixed with its RFC 3339 time when timestamps is asked for, the
// last tailLines lines when asked, cut at limitBytes.
func (p *podLogs) serve(w http.ResponseWriter, r *http.Request) {
	parts := strings.Split(strings.TrimPrefix(r.URL.Path, "/containerLogs/"), "/")
	if len(parts) != 3 || !strings.HasPrefix(r.URL.Path, "/containerLogs/") {
		http.NotFound(w, r)
		return
	}
	q := r.URL.Query()
	previous, _ := strconv.ParseBool(q.Get("previous"))
	timestamps, _ := strconv.ParseBool(q.Get("timestamps"))
	tail, _ := strconv.Atoi(q.Get("tailLines"))
	limit, _ := strconv.ParseInt(q.Get("limitBytes"), 10, 64)
	k := logKey(parts[0], parts[1], parts[2], previous)
	p.mu.Lock()
	file, appended := p.files[k], append([]string(nil), p.lines[k]...)
	p.mu.Unlock()

	var lines []string
	keep := func(l string) {
		lines = append(lines, l)
		if tail > 0 && len(lines) > 2*tail {
			lines = append(lines[:0], lines[len(lines)-tail:]...)
		}
	}
	if file != "" {
		f, err := os.Open(file)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		for sc.Scan() {
			keep(sc.Text())
		}
		f.Close()
	}
	for _, l := range appended {
		keep(l)
	}
	if tail > 0 && len(lines) > tail {
		lines = lines[len(lines)-tail:]
	}
	w.Header().Set("Content-Type", "text/plain")
	var out io.Writer = w
	if limit > 0 {
		out = &limitWriter{w: w, n: limit}
	}
	for _, l := range lines {
		if !timestamps {
			l = withoutStamp(l)
		}
		if _, err := io.WriteString(out, l+"\n"); err != nil {
			return
		}
	}
}

// withoutStamp drops the RFC 3339 time a kubelet writes in front of a line.
func withoutStamp(l string) string {
	if sp := strings.IndexByte(l, ' '); sp > 0 {
		if _, err := time.Parse(time.RFC3339Nano, l[:sp]); err == nil {
			return l[sp+1:]
		}
	}
	return l
}

// limitWriter stops after n bytes, as the kubelet's limitBytes does.
type limitWriter struct {
	w io.Writer
	n int64
}

var errLimit = errors.New("limitBytes reached")

func (l *limitWriter) Write(b []byte) (int, error) {
	if l.n <= 0 {
		return 0, errLimit
	}
	if int64(len(b)) > l.n {
		b = b[:l.n]
	}
	k, err := l.w.Write(b)
	l.n -= int64(k)
	if err == nil && l.n <= 0 {
		err = errLimit
	}
	return k, err
}

// startKubeletServer serves the pods' logs on 127.0.0.1 and points the
// loopback nodes at it. Without a KubeletCA it serves nothing.
func (s *Sim) startKubeletServer(ctx context.Context) error {
	if s.kubeletCA == nil {
		return nil
	}
	cert, err := servingCert(*s.kubeletCA)
	if err != nil {
		return fmt.Errorf("the kubelet serving certificate: %w", err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: http.HandlerFunc(s.logs.serve), TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second}
	s.wg.Add(2)
	go func() {
		defer s.wg.Done()
		_ = srv.ServeTLS(ln, "", "")
	}()
	go func() {
		defer s.wg.Done()
		<-ctx.Done()
		_ = srv.Close()
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	nodes, err := s.kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, n := range nodes.Items {
		if !isSimNode(&n) || !loopbackInternalIP(&n) {
			continue
		}
		patch := fmt.Sprintf(`{"status":{"daemonEndpoints":{"kubeletEndpoint":{"Port":%d}}}}`, port)
		if _, err := s.kube.CoreV1().Nodes().Patch(ctx, n.Name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("pointing node %s at the kubelet server: %w", n.Name, err)
		}
	}
	s.rec.record("kubelet", "LogsServed", "", fmt.Sprintf("pod logs of the loopback nodes on 127.0.0.1:%d", port), nil)
	return nil
}

// isSimNode reports whether the simulator is the node's kubelet (kwok's nodes
// are kwok's).
func isSimNode(n *corev1.Node) bool {
	_, kwok := n.Annotations[kubetest.FakeNodeAnnotation]
	return !kwok
}

// loopbackInternalIP reports whether the node's InternalIP is a loopback address.
func loopbackInternalIP(n *corev1.Node) bool {
	for _, a := range n.Status.Addresses {
		if a.Type == corev1.NodeInternalIP {
			ip := net.ParseIP(a.Address)
			return ip != nil && ip.IsLoopback()
		}
	}
	return false
}

// servingCert makes a certificate for 127.0.0.1 signed by the CA.
func servingCert(ca KubeletCA) (tls.Certificate, error) {
	certPEM, err := os.ReadFile(ca.CertFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	keyPEM, err := os.ReadFile(ca.KeyFile)
	if err != nil {
		return tls.Certificate{}, err
	}
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return tls.Certificate{}, errors.New("the CA files hold no PEM block")
	}
	caCert, err := x509.ParseCertificate(cb.Bytes)
	if err != nil {
		return tls.Certificate{}, err
	}
	caKey, err := x509.ParseECPrivateKey(kb.Bytes)
	if err != nil {
		return tls.Certificate{}, err
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return tls.Certificate{}, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "system:node:sim", Organization: []string{"system:nodes"}},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     caCert.NotAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}, nil
}

// daemonLog appends a line to the log of the machine-config daemon of a node,
// when its pod exists, with a klog header as the daemon writes it.
func (s *Sim) daemonLog(ctx context.Context, node, level, msg string) {
	pods, err := s.kube.CoreV1().Pods("openshift-machine-config-operator").List(ctx, metav1.ListOptions{LabelSelector: "k8s-app=machine-config-daemon"})
	if err != nil {
		return
	}
	now := time.Now().UTC()
	for _, p := range pods.Items {
		if p.Spec.NodeName == node {
			line := fmt.Sprintf("%s%s %7d %s] %s", level, now.Format("0102 15:04:05.000000"), 1, "drain.go:144", msg)
			s.logs.append(p.Namespace, p.Name, "machine-config-daemon", now, line)
		}
	}
}
