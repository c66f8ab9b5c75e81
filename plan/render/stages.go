package render

import (
	"fmt"
	"text/tabwriter"

	"github.com/openshift-recover/recover/plan/planfile"
)

// writeStages writes a staged plan's stages (formatVersion 1.3): one row per
// hop with what the workers do, then each stage's reasons, what it passed by
// and its warnings; the STEPS below are stage 1's.
func writeStages(ew *errWriter, p *planfile.Plan) {
	if len(p.Stages) == 0 {
		return
	}
	ew.printf("\nSTAGES to %s (the STEPS below are stage 1's; each later stage is planned again when the one before lands)\n", p.Goal)
	for _, r := range p.GoalReasons {
		ew.printf("  - %s\n", r)
	}
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "  STAGE\tFROM\tTO\tEDGE\tWORKERS\tSTEPS")
	for _, st := range p.Stages {
		n := len(st.Steps)
		if st.Index == 1 {
			n += len(p.Steps)
		}
		fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\t%s\t%d\n", st.Index, st.From, st.To, st.Edge, st.Workers, n)
	}
	ew.flush(tw)
	for _, st := range p.Stages {
		ew.printf("  stage %d, %s:\n", st.Index, st.To)
		for _, r := range st.Reasons {
			ew.printf("    - %s\n", r)
		}
		for _, s := range st.Steps {
			ew.printf("    %s  %s %s\n", s.ID, s.Action, gateText(s.Gate))
		}
		for _, w := range st.Warnings {
			ew.printf("    ! %s\n", w)
		}
	}
}
