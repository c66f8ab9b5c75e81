package graph

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/openshift-recover/recover/internal/bounded"
)

// Options say where a graph comes from and how to filter it.
type Options struct {
	// Graph is a file path or an http(s) URL: an update service graph response, or,
	// with GraphData, a raw graph-builder graph.
	Graph string
	// GraphData is a cincinnati-graph-data directory; when set, Graph is processed
	// the way a disconnected update service processes it.
	GraphData string
	// Channel filters the graph to one channel (and is sent as the channel query
	// parameter). Empty keeps every channel of a graph-data graph.
	Channel string
	// Arch is the architecture (query parameter arch; graph-data arch filter).
	// Empty means DefaultArch.
	Arch string

	// HTTPClient is used for URLs; nil uses a client with Timeout per attempt.
	HTTPClient *http.Client
	// Timeout bounds each HTTP attempt (default 30s); Retries is how many times a
	// 5xx, 429, timeout or connection failure is retried (default 3; negative: none);
	// Backoff is the first wait, doubled each retry up to 10s (default 1s). A
	// Retry-After header is honoured up to 30s.
	Timeout time.Duration
	Retries int
	Backoff time.Duration
	// MaxBytes caps the size of the graph, read from a file or a URL (default
	// DefaultMaxBytes).
	MaxBytes int64
	// UserAgent is sent with requests.
	UserAgent string
	// CacheDir, when set, is the loaded-graph cache (see cache.go): a graph loaded
	// before from the same graph bytes, graph-data files and options is read from
	// there instead of being made again. "" disables it.
	CacheDir string
}

// Result is a loaded graph and a digest of the bytes it was read from.
type Result struct {
	*Graph
	// Digest is "sha256:<hex>" of the graph document (not of graph-data).
	Digest string `json:"digest"`
	// GraphDataDigest is the graph-data directory's digest (dirdigest.Sum,
	// what a plan records as Inputs.GraphData), made in the same pass that read
	// the files the graph was built from; "" without graph-data, or when a file
	// of the directory could not be read.
	GraphDataDigest string `json:"graphDataDigest,omitempty"`
}

// IsURL reports whether a --graph value names a URL rather than a file.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// DefaultMaxBytes is the largest graph Load reads when Options.MaxBytes is unset;
// the real update service's amd64 graph is about 5 MiB.
const DefaultMaxBytes = 64 << 20

func (o Options) maxBytes() int64 {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// Load reads a graph from a file or URL and, with GraphData, applies graph-data
// (reading its directory once, for the graph and for Result.GraphDataDigest).
func Load(ctx context.Context, o Options) (*Result, error) {
	if o.Graph == "" {
		return nil, &InputError{Source: "--graph", Msg: "no graph given", Hint: "pass --graph FILE|URL (an update service graph, or a graph-builder graph with --graph-data)"}
	}
	arch := o.Arch
	if arch == "" {
		arch = DefaultArch
	}
	var data []byte
	var err error
	if IsURL(o.Graph) {
		data, err = fetch(ctx, o, arch)
	} else {
		data, err = bounded.ReadFile(o.Graph, o.maxBytes())
		if err != nil {
			return nil, &InputError{Source: o.Graph, Msg: "cannot read graph: " + errText(err), Hint: "pass --graph FILE|URL", Err: err}
		}
	}
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	digest := "sha256:" + hex.EncodeToString(sum[:])
	var gdf *graphDataFiles
	var gdDigest string
	if o.GraphData != "" {
		if gdf, gdDigest, err = readGraphDataDigested(o.GraphData); err != nil {
			return nil, err
		}
	}
	var key [sha256.Size]byte
	keyed := o.CacheDir != "" && (gdf == nil || gdf.complete())
	if keyed {
		key = graphCacheKey(o, digest, gdf)
		if g, ok := readGraphCache(o.CacheDir, key); ok {
			return &Result{Graph: g, Digest: digest, GraphDataDigest: gdDigest}, nil
		}
	}
	g, err := build(o, arch, data, gdf)
	if err != nil {
		return nil, err
	}
	if keyed {
		writeGraphCache(o.CacheDir, key, g)
	}
	return &Result{Graph: g, Digest: digest, GraphDataDigest: gdDigest}, nil
}

// build makes the graph from the graph document and, when gdf is not nil, the
// graph-data files read.
func build(o Options, arch string, data []byte, gdf *graphDataFiles) (*Graph, error) {
	if gdf != nil {
		// The graph-data YAML is parsed while the graph's JSON is decoded; a
		// graph-data error is still the one reported first.
		var gd *GraphData
		var gdErr error
		parsed := make(chan struct{})
		go func() {
			defer close(parsed)
			gd, gdErr = gdf.parse()
		}()
		p, err := newPipeline(o.Graph, data)
		<-parsed
		if gdErr != nil {
			return nil, gdErr
		}
		if err != nil {
			return nil, err
		}
		return p.apply(gd, arch, o.Channel)
	}
	g, err := Parse(o.Graph, data)
	if err != nil {
		return nil, err
	}
	g.Arch = o.Arch
	if o.Channel != "" {
		g, err = g.filterChannel(o.Channel)
		if err != nil {
			return nil, err
		}
	}
	return g, nil
}

// filterChannel keeps the nodes whose channel metadata lists channel. A served
// graph whose nodes carry no channel metadata is returned as is (the service
// already filtered it).
func (g *Graph) filterChannel(channel string) (*Graph, error) {
	anyChannels := false
	var nodes []Node
	keep := map[string]bool{}
	for _, n := range g.nodes {
		if len(n.Channels) > 0 {
			anyChannels = true
		}
		for _, c := range n.Channels {
			if c == channel {
				nodes = append(nodes, n)
				keep[n.Version] = true
				break
			}
		}
	}
	if !anyChannels {
		g.Channel = channel
		return g, nil
	}
	if len(nodes) == 0 {
		return nil, &InputError{Source: g.Source, Field: "nodes[].metadata", Msg: fmt.Sprintf("no release is in channel %q", channel), Hint: "channels in the graph: " + strings.Join(g.Channels(), ", ")}
	}
	var edges []Edge
	for _, e := range g.edges {
		if keep[e.From] && keep[e.To] {
			edges = append(edges, e)
		}
	}
	ng := newGraph(nodes, edges)
	ng.Source, ng.GraphData, ng.Arch, ng.Channel, ng.Warnings = g.Source, g.GraphData, g.Arch, channel, g.Warnings
	return ng, nil
}

// fetch downloads a graph, retrying transient failures with exponential backoff.
func fetch(ctx context.Context, o Options, arch string) ([]byte, error) {
	u, err := url.Parse(o.Graph)
	if err != nil {
		return nil, &InputError{Source: o.Graph, Msg: "invalid URL: " + err.Error()}
	}
	q := u.Query()
	if o.Channel != "" && o.GraphData == "" {
		q.Set("channel", o.Channel)
	}
	q.Set("arch", arch)
	u.RawQuery = q.Encode()
	target := u.String()

	timeout, retries, backoff, maxBytes := o.Timeout, o.Retries, o.Backoff, o.maxBytes()
	if timeout <= 0 {
		timeout = 30 * time.Second
	}
	if retries == 0 {
		retries = 3
	}
	if retries < 0 {
		retries = 0
	}
	if backoff <= 0 {
		backoff = time.Second
	}
	client := o.HTTPClient
	if client == nil {
		client = &http.Client{Timeout: timeout}
	}
	var last *FetchError
	for attempt := 1; ; attempt++ {
		data, ferr, retryAfter := fetchOnce(ctx, client, target, timeout, maxBytes, o.UserAgent)
		if ferr == nil {
			return data, nil
		}
		ferr.Attempts = attempt
		last = ferr
		transient := ferr.Kind == FetchConnection || ferr.Kind == FetchTimeout || ferr.Kind == FetchServer || ferr.Kind == FetchThrottled
		if !transient || attempt > retries || ctx.Err() != nil {
			break
		}
		wait := backoff << (attempt - 1)
		if wait > 10*time.Second {
			wait = 10 * time.Second
		}
		if retryAfter > 0 {
			wait = min(retryAfter, 30*time.Second)
		}
		select {
		case <-ctx.Done():
			return nil, &FetchError{URL: target, Kind: FetchTimeout, Attempts: attempt, Detail: ctx.Err().Error(), Err: ctx.Err()}
		case <-time.After(wait):
		}
	}
	return nil, last
}

// fetchOnce does one GET and classifies a failure; it returns the Retry-After delay.
func fetchOnce(ctx context.Context, client *http.Client, target string, timeout time.Duration, maxBytes int64, ua string) ([]byte, *FetchError, time.Duration) {
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodGet, target, nil)
	if err != nil {
		return nil, &FetchError{URL: target, Kind: FetchRejected, Detail: err.Error()}, 0
	}
	req.Header.Set("Accept", "application/json")
	if ua != "" {
		req.Header.Set("User-Agent", ua)
	}
	resp, err := client.Do(req)
	if err != nil {
		kind := FetchConnection
		var ne net.Error
		if errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
			kind = FetchTimeout
		}
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, &FetchError{URL: target, Kind: FetchTimeout, Detail: "canceled", Err: context.Canceled}, 0
		}
		return nil, &FetchError{URL: target, Kind: kind, Detail: transportText(err)}, 0
	}
	defer resp.Body.Close()
	body, rerr := io.ReadAll(io.LimitReader(resp.Body, maxBytes+1))
	if rerr != nil {
		return nil, &FetchError{URL: target, Kind: FetchConnection, Detail: "reading response: " + transportText(rerr)}, 0
	}
	if int64(len(body)) > maxBytes {
		return nil, &FetchError{URL: target, Kind: FetchBadContent, Detail: fmt.Sprintf("response larger than %d bytes", maxBytes)}, 0
	}
	retryAfter := parseRetryAfter(resp.Header.Get("Retry-After"))
	switch {
	case resp.StatusCode == http.StatusTooManyRequests:
		return nil, &FetchError{URL: target, Kind: FetchThrottled, StatusCode: resp.StatusCode, Detail: serviceError(body)}, retryAfter
	case resp.StatusCode >= 500:
		return nil, &FetchError{URL: target, Kind: FetchServer, StatusCode: resp.StatusCode, Detail: serviceError(body)}, retryAfter
	case resp.StatusCode == http.StatusNotFound:
		return nil, &FetchError{URL: target, Kind: FetchNotFound, StatusCode: resp.StatusCode, Detail: serviceError(body)}, 0
	case resp.StatusCode >= 400:
		return nil, &FetchError{URL: target, Kind: FetchRejected, StatusCode: resp.StatusCode, Detail: serviceError(body)}, 0
	case resp.StatusCode != http.StatusOK:
		return nil, &FetchError{URL: target, Kind: FetchBadContent, StatusCode: resp.StatusCode, Detail: "unexpected status " + resp.Status}, 0
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		mt, _, _ := mime.ParseMediaType(ct)
		if mt != "application/json" && !strings.HasSuffix(mt, "+json") {
			return nil, &FetchError{URL: target, Kind: FetchBadContent, StatusCode: resp.StatusCode, Detail: "content type " + mt}, 0
		}
	}
	return body, nil, 0
}

// serviceError extracts cincinnati's {kind, value} error body, or a short prefix.
func serviceError(body []byte) string {
	var e struct {
		Kind  string `json:"kind"`
		Value string `json:"value"`
	}
	if json.Unmarshal(body, &e) == nil && (e.Kind != "" || e.Value != "") {
		return strings.TrimSpace(e.Kind + ": " + e.Value)
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return s
}

func parseRetryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return time.Until(t)
	}
	return 0
}

// transportText is the innermost, most useful text of a transport error.
func transportText(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}
