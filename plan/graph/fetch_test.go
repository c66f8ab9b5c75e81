package graph

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func fastOptions(url string) Options {
	return Options{Graph: url, Channel: "stable-4.7", Arch: "amd64", Timeout: 200 * time.Millisecond, Retries: 2, Backoff: time.Millisecond}
}

func TestFetchSendsQueryAndRetries(t *testing.T) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept") != "application/json" || r.URL.Query().Get("channel") != "stable-4.7" || r.URL.Query().Get("arch") != "amd64" {
			http.Error(w, `{"kind":"missing_params","value":"mandatory client parameters missing: channel"}`, http.StatusBadRequest)
			return
		}
		switch calls.Add(1) {
		case 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		case 2:
			w.Header().Set("Retry-After", "0")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		default:
			w.Header().Set("Content-Type", "application/json; charset=utf-8")
			_, _ = w.Write([]byte(served))
		}
	}))
	defer srv.Close()
	r, err := Load(context.Background(), fastOptions(srv.URL+"/api/upgrades_info/v1/graph"))
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 || r.Len() != 4 || r.Channel != "stable-4.7" {
		t.Fatalf("calls %d, nodes %d, channel %q", calls.Load(), r.Len(), r.Channel)
	}
	if !strings.HasPrefix(r.Digest, "sha256:") {
		t.Fatalf("digest %q", r.Digest)
	}
}

func TestFetchFailures(t *testing.T) {
	slow := make(chan struct{})
	defer close(slow)
	for _, tc := range []struct {
		name     string
		handler  http.HandlerFunc
		kind     FetchKind
		badInput bool
		attempts int
		want     string
	}{
		{"not found", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) }, FetchNotFound, true, 1, "not found (HTTP 404)"},
		{"rejected", func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, `{"kind":"invalid_params","value":"channel 'x' does not match regex"}`, http.StatusBadRequest)
		}, FetchRejected, true, 1, "invalid_params: channel 'x' does not match regex"},
		{"server", func(w http.ResponseWriter, r *http.Request) { http.Error(w, "boom", http.StatusBadGateway) }, FetchServer, false, 3, "server error 502 after 3 attempts"},
		{"not json", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			_, _ = w.Write([]byte("<html>login</html>"))
		}, FetchBadContent, true, 1, "content type text/html"},
		{"timeout", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-slow:
			case <-r.Context().Done():
			}
		}, FetchTimeout, false, 3, "timed out after 3 attempts"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := httptest.NewServer(tc.handler)
			defer srv.Close()
			_, err := Load(context.Background(), fastOptions(srv.URL))
			var fe *FetchError
			if !errors.As(err, &fe) {
				t.Fatalf("want *FetchError, got %T %v", err, err)
			}
			if fe.Kind != tc.kind || fe.BadInput() != tc.badInput || fe.Attempts != tc.attempts {
				t.Fatalf("kind %s badInput %v attempts %d: %v", fe.Kind, fe.BadInput(), fe.Attempts, err)
			}
			msg := err.Error()
			if !strings.Contains(msg, srv.URL) || !strings.Contains(msg, tc.want) || strings.Contains(msg, "\n") {
				t.Fatalf("message %q should name the URL and %q on one line", msg, tc.want)
			}
		})
	}
}

func TestFetchConnectionRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	_, err := Load(context.Background(), fastOptions(url))
	var fe *FetchError
	if !errors.As(err, &fe) || fe.Kind != FetchConnection || fe.Attempts != 3 || fe.BadInput() {
		t.Fatalf("want connection failure after 3 attempts, got %v", err)
	}
	if !strings.Contains(err.Error(), "--graph FILE") {
		t.Fatalf("message should say what to do: %v", err)
	}
}

func TestFetchMalformedBody(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"nodes": [`))
	}))
	defer srv.Close()
	_, err := Load(context.Background(), fastOptions(srv.URL))
	var ie *InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), srv.URL) || !strings.Contains(err.Error(), "malformed JSON") {
		t.Fatalf("want InputError naming the URL, got %v", err)
	}
}
