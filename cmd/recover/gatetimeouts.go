package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/openshift-recover/recover/apply/gate"
	"github.com/openshift-recover/recover/plan/planfile"
)

// gateTimeoutFlag is --gate-timeout KIND=DURATION (repeatable): how long a run
// waits on each kind of gate (recover apply, recover tui).
type gateTimeoutFlag struct {
	values []string
}

// addGateTimeoutFlag registers --gate-timeout on fs.
func addGateTimeoutFlag(fs *pflag.FlagSet) *gateTimeoutFlag {
	f := &gateTimeoutFlag{}
	fs.StringArrayVar(&f.values, "gate-timeout", nil, "Gate timeout per kind, KIND=DURATION (repeatable), e.g. cluster-operator=45m; one set here ends a wait even where the CVO would keep waiting (by default a cluster-operator gate waits as long as the CVO would). Kinds: "+gateKinds()+".")
	return f
}

// given reports whether the flag was used.
func (f *gateTimeoutFlag) given() bool { return len(f.values) > 0 }

// parse returns the timeouts by gate kind, or a usage error naming the bad value.
func (f *gateTimeoutFlag) parse() (map[planfile.GateKind]time.Duration, error) {
	out := map[planfile.GateKind]time.Duration{}
	for _, kv := range f.values {
		k, v, ok := strings.Cut(kv, "=")
		d, err := time.ParseDuration(v)
		if _, known := gate.DefaultTimeouts[planfile.GateKind(k)]; !ok || !known || err != nil || d <= 0 {
			return nil, usageError{msg: fmt.Sprintf("--gate-timeout %q: want KIND=DURATION with KIND one of %s and a positive duration like 45m", kv, gateKinds())}
		}
		out[planfile.GateKind(k)] = d
	}
	return out, nil
}

// gateKinds lists the gate kinds --gate-timeout accepts.
func gateKinds() string {
	var kinds []string
	for _, k := range planfile.GateKinds() {
		kinds = append(kinds, string(k))
	}
	return strings.Join(kinds, ", ")
}
