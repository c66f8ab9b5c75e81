package faultproxy

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/net"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/openshift-recover/recover/internal/testing/kubetest"
)

var env *kubetest.Env

func TestMain(m *testing.M) { kubetest.Main(m, kubetest.Options{SkipCRDs: true}, &env) }

func start(t *testing.T, rates map[Kind]float64) (*Proxy, kubernetes.Interface) {
	t.Helper()
	kubetest.Require(t, env)
	p, err := Start(Options{Upstream: env.Config, Seed: 1, Rates: rates, Latency: 300 * time.Millisecond, WatchCutAfter: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	cfg := p.Config()
	cfg.QPS, cfg.Burst = 1000, 1000
	return p, kubernetes.NewForConfigOrDie(cfg)
}

// TestEachFaultAsTheClientSeesIt sends requests through the proxy with one fault
// kind at rate 1 and checks what client-go reports and whether the API server
// saw the request.
func TestEachFaultAsTheClientSeesIt(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		kind      Kind
		check     func(err error) bool
		forwarded bool
	}{
		{ServerError, apierrors.IsInternalError, false},
		{Unavailable, apierrors.IsServiceUnavailable, false},
		{ResetBefore, func(err error) bool { return net.IsConnectionReset(err) || net.IsProbableEOF(err) }, false},
		{ResetAfter, func(err error) bool { return net.IsConnectionReset(err) || net.IsProbableEOF(err) }, true},
		{Latency, func(err error) bool { return err == nil }, true},
	} {
		t.Run(string(tc.kind), func(t *testing.T) {
			p, kube := start(t, map[Kind]float64{tc.kind: 1})
			name := "fp-" + strings.ReplaceAll(string(tc.kind), "-", "")
			began := time.Now()
			_, err := kube.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
			if !tc.check(err) {
				t.Fatalf("create through %s: unexpected error %v", tc.kind, err)
			}
			if tc.kind == Latency && time.Since(began) < 300*time.Millisecond {
				t.Errorf("no latency: %s", time.Since(began))
			}
			_, gerr := kubernetes.NewForConfigOrDie(env.Config).CoreV1().ConfigMaps("default").Get(ctx, name, metav1.GetOptions{})
			if created := gerr == nil; created != tc.forwarded {
				t.Errorf("%s: the API server has the object: %v, want %v", tc.kind, created, tc.forwarded)
			}
			log := p.Log()
			if len(log) != 1 || log[0].Fault != tc.kind || log[0].Forwarded != tc.forwarded || log[0].Name != name {
				t.Errorf("log %+v", log)
			}
		})
	}
}

// TestThrottleIsRetriedByClientGo: 429 with Retry-After is what client-go retries
// by itself, so recover's own handling is tested with the other faults.
func TestThrottleIsRetriedByClientGo(t *testing.T) {
	p, kube := start(t, map[Kind]float64{Throttle: 0.5})
	for i := 0; i < 5; i++ {
		if _, err := kube.CoreV1().Namespaces().Get(context.Background(), "default", metav1.GetOptions{}); err != nil {
			t.Fatalf("get %d: %v", i, err)
		}
	}
	if s := p.Stats(); s.Faults[Throttle] == 0 {
		t.Fatalf("no 429 injected: %s", s)
	}
}

// TestWatchIsCut opens a watch through the proxy and sees it end by itself.
func TestWatchIsCut(t *testing.T) {
	p, kube := start(t, map[Kind]float64{CutWatch: 1})
	w, err := kube.CoreV1().ConfigMaps("default").Watch(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-w.ResultChan():
			if !ok {
				if s := p.Stats(); s.Faults[CutWatch] != 1 {
					t.Fatalf("stats %s", s)
				}
				return
			}
		case <-deadline:
			t.Fatal("the watch was not cut")
		}
	}
}

func TestSeedsReproduce(t *testing.T) {
	kubetest.Require(t, env)
	draws := func(seed uint64) []Kind {
		p, err := Start(Options{Upstream: env.Config, Seed: seed, Rates: map[Kind]float64{ServerError: 0.3, Unavailable: 0.3}})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		var out []Kind
		r, _ := http.NewRequest(http.MethodGet, "/api", nil)
		for i := 0; i < 50; i++ {
			out = append(out, p.draw(r, false))
		}
		return out
	}
	a, b, c := draws(3), draws(3), draws(4)
	if strings.Join(kinds(a), ",") != strings.Join(kinds(b), ",") || strings.Join(kinds(a), ",") == strings.Join(kinds(c), ",") {
		t.Fatal("draws must depend on the seed only")
	}
}

func kinds(ks []Kind) []string {
	var out []string
	for _, k := range ks {
		out = append(out, string(k))
	}
	return out
}

func TestRefusesANonLoopbackUpstream(t *testing.T) {
	for _, host := range []string{"https://10.0.0.1:6443", "https://api.example.com:6443", "https://192.168.1.1"} {
		if _, err := Start(Options{Upstream: &rest.Config{Host: host}}); err == nil || !strings.Contains(err.Error(), "loopback") {
			t.Errorf("%s: %v", host, err)
		}
	}
	if _, err := Start(Options{Upstream: &rest.Config{Host: "https://127.0.0.1:1"}, Rates: map[Kind]float64{ServerError: 0.7, Unavailable: 0.7}}); err == nil {
		t.Error("rates above 1 must be refused")
	}
}
