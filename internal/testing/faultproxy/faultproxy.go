package faultproxy

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Kind is a kind of fault.
type Kind string

// The faults, in the order a request's draw tries them.
const (
	// Throttle answers 429 Too Many Requests with a Retry-After header; the
	// request does not reach the API server.
	Throttle Kind = "429"
	// ServerError answers 500 without Retry-After (client-go does not retry it).
	ServerError Kind = "500"
	// Unavailable answers 503 without Retry-After.
	Unavailable Kind = "503"
	// ResetBefore resets the connection before the request reaches the API server.
	ResetBefore Kind = "reset-before"
	// ResetAfter lets the request reach the API server, then resets the
	// connection instead of answering: the change is made, the client never
	// learns it (never applied to watches).
	ResetAfter Kind = "reset-after"
	// Latency delays the request (Options.Latency, default 2s), then forwards it.
	Latency Kind = "latency"
	// CutWatch ends a watch stream after a while (Options.WatchCutAfter); only
	// watch requests draw it.
	CutWatch Kind = "cut-watch"
)

// Kinds lists every fault kind in draw order.
var Kinds = []Kind{Throttle, ServerError, Unavailable, ResetBefore, ResetAfter, Latency, CutWatch}

// Options configure a proxy.
type Options struct {
	// Upstream is the real API server's client configuration; it must point at a
	// loopback address.
	Upstream *rest.Config
	// Seed makes the fault draws reproducible (for a given request order).
	Seed uint64
	// Rates is each kind's probability per request (0..1; their sum at most 1).
	Rates map[Kind]float64
	// Latency is the delay of Latency faults (default 2s).
	Latency time.Duration
	// RetryAfter is the Retry-After of Throttle faults, in seconds (default 1).
	RetryAfter int
	// WatchCutAfter is the longest a cut watch stream lives; each cut watch
	// lives a random time up to it (default 2s).
	WatchCutAfter time.Duration
	// Filter limits faults to the requests it accepts (nil: every request).
	Filter func(*http.Request) bool
	// Hook, when set, is called for every request that would reach the API
	// server: with Before just before it is forwarded (returning true drops it:
	// the connection is reset and the server never sees it), and with After once
	// the server has answered and before the client gets the answer. It may block
	// (a crash test kills the client there).
	Hook func(e Entry, stage Stage) (drop bool)
}

// Stage says when a Hook is called.
type Stage int

// The hook stages.
const (
	Before Stage = iota
	After
)

// Entry is one request through the proxy.
type Entry struct {
	Time   time.Time
	Method string
	Path   string
	Watch  bool
	// DryRun is true for server-side dry runs (which change nothing).
	DryRun bool
	// Name is metadata.name of a POST's body (what a create creates).
	Name string
	// Fault is the injected fault ("" for none).
	Fault Kind
	// Forwarded is true when the request reached the API server; Status is the
	// API server's status then, else the injected one (0 for a reset).
	Forwarded bool
	Status    int
}

// Proxy is a running fault-injecting reverse proxy on loopback.
type Proxy struct {
	// URL is the proxy's https URL.
	URL string

	o        Options
	srv      *httptest.Server
	upstream *url.URL
	client   *http.Transport

	mu    sync.Mutex
	rng   *rand.Rand
	rates map[Kind]float64
	log   []Entry
}

// Start starts a proxy in front of o.Upstream, listening on 127.0.0.1 only.
func Start(o Options) (*Proxy, error) {
	if o.Upstream == nil {
		return nil, errors.New("faultproxy: no upstream")
	}
	u, err := url.Parse(o.Upstream.Host)
	if err != nil {
		return nil, fmt.Errorf("faultproxy: upstream %q: %w", o.Upstream.Host, err)
	}
	if ip := net.ParseIP(u.Hostname()); u.Hostname() != "localhost" && (ip == nil || !ip.IsLoopback()) {
		return nil, fmt.Errorf("faultproxy: upstream %s is not a loopback address; the proxy only fronts a local test API server", u.Host)
	}
	if o.Latency == 0 {
		o.Latency = 2 * time.Second
	}
	if o.RetryAfter == 0 {
		o.RetryAfter = 1
	}
	if o.WatchCutAfter == 0 {
		o.WatchCutAfter = 2 * time.Second
	}
	p := &Proxy{o: o, upstream: u, rng: rand.New(rand.NewPCG(o.Seed, 0x9e3779b97f4a7c15))}
	if err := p.SetRates(o.Rates); err != nil {
		return nil, err
	}
	p.client = &http.Transport{
		TLSClientConfig:     &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // loopback test API server with a self-signed certificate
		MaxIdleConnsPerHost: 64,
		DialContext:         (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
	}
	p.srv = httptest.NewUnstartedServer(http.HandlerFunc(p.serve))
	p.srv.StartTLS()
	p.URL = p.srv.URL
	return p, nil
}

// SetRates replaces the fault rates (nil: no faults) from the next request on.
func (p *Proxy) SetRates(rates map[Kind]float64) error {
	sum := 0.0
	for k, r := range rates {
		if !slices.Contains(Kinds, k) || r < 0 {
			return fmt.Errorf("faultproxy: bad rate %v for %q", r, k)
		}
		sum += r
	}
	if sum > 1 {
		return fmt.Errorf("faultproxy: rates add up to %v, more than 1", sum)
	}
	p.mu.Lock()
	p.rates = maps(rates)
	p.mu.Unlock()
	return nil
}

func maps(m map[Kind]float64) map[Kind]float64 {
	out := make(map[Kind]float64, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// Close stops the proxy.
func (p *Proxy) Close() {
	p.srv.CloseClientConnections()
	p.srv.Close()
	p.client.CloseIdleConnections()
}

// Config returns a client configuration for the proxy with the upstream's
// credentials.
func (p *Proxy) Config() *rest.Config {
	cfg := rest.CopyConfig(p.o.Upstream)
	cfg.Host = p.URL
	cfg.TLSClientConfig = rest.TLSClientConfig{Insecure: true}
	return cfg
}

// WriteKubeconfig writes a kubeconfig for the proxy (token credentials, as
// kubetest's) to path, mode 0600.
func (p *Proxy) WriteKubeconfig(path string) error {
	c := clientcmdapi.NewConfig()
	c.Clusters["faultproxy"] = &clientcmdapi.Cluster{Server: p.URL, InsecureSkipTLSVerify: true}
	c.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: p.o.Upstream.BearerToken}
	c.Contexts["faultproxy"] = &clientcmdapi.Context{Cluster: "faultproxy", AuthInfo: "user"}
	c.CurrentContext = "faultproxy"
	if err := clientcmd.WriteToFile(*c, path); err != nil {
		return err
	}
	return os.Chmod(path, 0o600)
}

// Log returns every request so far.
func (p *Proxy) Log() []Entry {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.log)
}

// Stats counts requests and injected faults.
type Stats struct {
	Requests int
	Faults   map[Kind]int
}

// Injected is the total of injected faults.
func (s Stats) Injected() int {
	n := 0
	for _, c := range s.Faults {
		n += c
	}
	return n
}

func (s Stats) String() string {
	var parts []string
	for _, k := range Kinds {
		if s.Faults[k] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", k, s.Faults[k]))
		}
	}
	return fmt.Sprintf("%d requests, %d faults (%s)", s.Requests, s.Injected(), strings.Join(parts, ", "))
}

// Stats returns the counts so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := Stats{Requests: len(p.log), Faults: map[Kind]int{}}
	for _, e := range p.log {
		if e.Fault != "" {
			s.Faults[e.Fault]++
		}
	}
	return s
}

func isWatch(r *http.Request) bool {
	w := r.URL.Query().Get("watch")
	return w == "true" || w == "1" || strings.Contains(r.URL.Path, "/watch/")
}

// draw picks the request's fault.
func (p *Proxy) draw(r *http.Request, watch bool) Kind {
	if p.o.Filter != nil && !p.o.Filter(r) {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	u := p.rng.Float64()
	cum := 0.0
	for _, k := range Kinds {
		rate := p.rates[k]
		if rate == 0 {
			continue
		}
		cum += rate
		if u < cum {
			switch {
			case k == CutWatch && !watch, k == ResetAfter && watch:
				return ""
			}
			return k
		}
	}
	return ""
}

func (p *Proxy) record(e Entry) {
	p.mu.Lock()
	p.log = append(p.log, e)
	p.mu.Unlock()
}

func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	watch := isWatch(r)
	e := Entry{Time: time.Now(), Method: r.Method, Path: r.URL.Path, Watch: watch, DryRun: r.URL.Query().Has("dryRun")}
	body, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodPost {
		e.Name = objectName(body)
	}
	if r.Method == http.MethodDelete && len(body) > 0 {
		// client-go sends a DELETE's options, dryRun included, in its body.
		var opts struct {
			DryRun []string `json:"dryRun"`
		}
		if json.Unmarshal(body, &opts) == nil && len(opts.DryRun) > 0 {
			e.DryRun = true
		}
	}
	e.Fault = p.draw(r, watch)
	switch e.Fault {
	case Throttle:
		w.Header().Set("Retry-After", strconv.Itoa(p.o.RetryAfter))
		e.Status = http.StatusTooManyRequests
		p.record(e)
		status(w, e.Status, "TooManyRequests", "faultproxy: too many requests, please try again later")
		return
	case ServerError:
		e.Status = http.StatusInternalServerError
		p.record(e)
		status(w, e.Status, "InternalError", "faultproxy: an error on the server has prevented the request from succeeding")
		return
	case Unavailable:
		e.Status = http.StatusServiceUnavailable
		p.record(e)
		status(w, e.Status, "ServiceUnavailable", "faultproxy: the server is currently unable to handle the request")
		return
	case ResetBefore:
		p.record(e)
		reset(w)
		return
	case Latency:
		select {
		case <-time.After(p.o.Latency):
		case <-r.Context().Done():
			p.record(e)
			return
		}
	}
	if p.o.Hook != nil && p.o.Hook(e, Before) {
		p.record(e)
		reset(w)
		return
	}
	resp, err := p.roundTrip(r, body)
	if err != nil {
		e.Status = http.StatusBadGateway
		p.record(e)
		status(w, e.Status, "InternalError", "faultproxy: upstream: "+err.Error())
		return
	}
	defer resp.Body.Close()
	e.Forwarded, e.Status = true, resp.StatusCode
	if p.o.Hook != nil {
		_ = p.o.Hook(e, After)
	}
	if e.Fault == ResetAfter {
		_, _ = io.Copy(io.Discard, resp.Body)
		p.record(e)
		reset(w)
		return
	}
	p.record(e)
	for k, vs := range resp.Header {
		if k == "Content-Length" || k == "Connection" || k == "Transfer-Encoding" {
			continue
		}
		w.Header()[k] = vs
	}
	if !watch && resp.ContentLength >= 0 {
		w.Header().Set("Content-Length", strconv.FormatInt(resp.ContentLength, 10))
	}
	w.WriteHeader(resp.StatusCode)
	var cut <-chan time.Time
	if e.Fault == CutWatch {
		p.mu.Lock()
		d := time.Duration(p.rng.Int64N(int64(p.o.WatchCutAfter)) + 1)
		p.mu.Unlock()
		cut = time.After(d)
	}
	stream(w, resp.Body, cut)
}

// objectName returns metadata.name of a request body in JSON, or in protobuf or
// CBOR for the built-in types client-go sends that way.
func objectName(body []byte) string {
	var obj struct {
		Metadata struct {
			Name string `json:"name"`
		} `json:"metadata"`
	}
	if json.Unmarshal(body, &obj) == nil {
		return obj.Metadata.Name
	}
	o, _, err := scheme.Codecs.UniversalDeserializer().Decode(body, nil, nil)
	if err != nil {
		return ""
	}
	if m, err := meta.Accessor(o); err == nil {
		return m.GetName()
	}
	return ""
}

// roundTrip sends the request to the API server.
func (p *Proxy) roundTrip(r *http.Request, body []byte) (*http.Response, error) {
	target := *p.upstream
	target.Path = r.URL.Path
	target.RawPath = r.URL.RawPath
	target.RawQuery = r.URL.RawQuery
	out, err := http.NewRequestWithContext(r.Context(), r.Method, target.String(), bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	for k, vs := range r.Header {
		if k == "Connection" || k == "Upgrade" || k == "Keep-Alive" {
			continue
		}
		out.Header[k] = vs
	}
	out.ContentLength = int64(len(body))
	return p.client.RoundTrip(out)
}

// stream copies a response body, flushing as it goes (watches), until it ends or
// cut fires.
func stream(w http.ResponseWriter, body io.Reader, cut <-chan time.Time) {
	flusher, _ := w.(http.Flusher)
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		buf := make([]byte, 32<<10)
		for {
			n, err := body.Read(buf)
			if n > 0 {
				chunks <- slices.Clone(buf[:n])
			}
			if err != nil {
				return
			}
		}
	}()
	for {
		select {
		case c, ok := <-chunks:
			if !ok {
				return
			}
			if _, err := w.Write(c); err != nil {
				go drain(chunks)
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
		case <-cut:
			go drain(chunks)
			return
		}
	}
}

func drain(c <-chan []byte) {
	for range c {
	}
}

// status writes a Kubernetes Status error, as the API server would.
func status(w http.ResponseWriter, code int, reason, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(map[string]any{
		"kind": "Status", "apiVersion": "v1", "metadata": map[string]any{},
		"status": "Failure", "message": msg, "reason": reason, "code": code,
	})
}

// reset closes the client's connection with a TCP RST.
func reset(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok {
		panic(http.ErrAbortHandler)
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		panic(http.ErrAbortHandler)
	}
	raw := conn
	if tc, ok := conn.(*tls.Conn); ok {
		raw = tc.NetConn()
	}
	if tcp, ok := raw.(*net.TCPConn); ok {
		_ = tcp.SetLinger(0)
	}
	_ = raw.Close()
}

// Runs returns how many seeded runs a fault test makes: def, or the number in
// RECOVER_FAULT_RUNS (raised for the figures in docs/reliability.md).
func Runs(def int) int {
	if n, err := strconv.Atoi(os.Getenv("RECOVER_FAULT_RUNS")); err == nil && n > 0 {
		return n
	}
	return def
}
