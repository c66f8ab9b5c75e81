package common

import (
	"strconv"
	"strings"

	"github.com/openshift-recover/recover/tui/styles"
)

// RenderDiff colours a unified diff (added lines green, removed red, hunk headers
// dim) and cuts its lines to width; maxLines > 0 keeps only the first lines and
// says how many were left out.
func RenderDiff(st *styles.Styles, diff string, width, maxLines int) string {
	lines := strings.Split(strings.TrimRight(diff, "\n"), "\n")
	more := 0
	if maxLines > 0 && len(lines) > maxLines {
		more = len(lines) - maxLines
		lines = lines[:maxLines]
	}
	for i, l := range lines {
		l = Truncate(l, width)
		switch {
		case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"):
			l = st.Dim.Render(l)
		case strings.HasPrefix(l, "+"):
			l = st.Added.Render(l)
		case strings.HasPrefix(l, "-"):
			l = st.Removed.Render(l)
		}
		lines[i] = l
	}
	if more > 0 {
		lines = append(lines, st.Dim.Render("... "+strconv.Itoa(more)+" more diff lines: the whole diff is on the Plan screen (3)"))
	}
	return strings.Join(lines, "\n")
}
