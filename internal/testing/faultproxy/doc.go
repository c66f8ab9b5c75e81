// Package faultproxy is test machinery: a reverse proxy on loopback in front of a
// real (kubetest) kube-apiserver that injects the faults a wedged cluster's API
// shows: 429 with Retry-After, 500 and 503 without it, connection resets before
// the request reaches the server and after it was served (the response lost),
// 2-second latency, and watch streams cut mid-way. Each request draws at most one
// fault from configurable rates with a seeded generator; every request is logged
// (method, path, the name a POST creates, the fault, whether it reached the
// server and its status), which doubles as an audit of what the server saw.
//
//	p, _ := faultproxy.Start(faultproxy.Options{Upstream: env.Config, Seed: 7,
//		Rates: map[faultproxy.Kind]float64{faultproxy.ServerError: 0.1, faultproxy.ResetAfter: 0.05}})
//	defer p.Close()
//	cfg := p.Config() // or p.WriteKubeconfig(path) for the recover binary
//
// It refuses an upstream that is not a loopback address. Only tests import it.
package faultproxy
