package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/apply"
	"github.com/openshift-recover/recover/apply/printer"
)

// TestAPIServerWarningsAreEvents: with --events json, the API server's
// warnings (the Warning header client-go hands its rest.WarningHandler) are
// warning events of the JSON stream, each distinct one once, and nothing goes
// to stderr beside the stream (issue 34: they went raw to stderr).
func TestAPIServerWarningsAreEvents(t *testing.T) {
	const text = "policy/v1beta1 PodDisruptionBudget is deprecated in v1.21+, unavailable in v1.25+; use policy/v1 PodDisruptionBudget"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Warning", `299 - "`+text+`"`)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"major":"1","minor":"37","gitVersion":"v1.37.2"}`))
	}))
	defer srv.Close()
	var out, errOut bytes.Buffer
	cfg := &rest.Config{Host: srv.URL}
	cfg.WarningHandler = &warningEvents{p: printer.NewJSON(&out, "test"), errOut: &errOut, seen: map[string]bool{}}
	kc := kubernetes.NewForConfigOrDie(cfg)
	for range 3 {
		if _, err := kc.Discovery().RESTClient().Get().AbsPath("/version").Do(context.Background()).Raw(); err != nil {
			t.Fatal(err)
		}
	}
	var events []apply.Event
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		var ev apply.Event
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("not a JSON line: %q", sc.Text())
		}
		events = append(events, ev)
	}
	if len(events) != 2 || events[0].Type != "version" || events[1].Type != apply.EventWarning || events[1].Message != "API server warning: "+text {
		t.Errorf("the stream: %+v; want the version line and one warning event", events)
	}
	if errOut.Len() != 0 {
		t.Errorf("stderr: %q", errOut.String())
	}
}
