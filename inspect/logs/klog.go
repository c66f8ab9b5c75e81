package logs

import (
	"bytes"
	"time"
)

// header is a log line taken apart: the RFC 3339 time written in front of it
// (oc adm inspect, kubectl logs --timestamps), the klog header's time and level,
// and the message after "] ".
type header struct {
	stamp []byte // "2020-05-24T16:08:36.953283123Z", nil when absent
	klog  []byte // "I0524 16:08:36.953283", nil when the line has no klog header
	msg   []byte
}

// split takes a line apart without allocating. A line without a klog header has
// klog == nil and msg the rest of the line.
func split(line []byte) header {
	var h header
	rest := line
	if len(rest) > 20 && rest[4] == '-' && rest[7] == '-' && rest[10] == 'T' && isDigit(rest[0]) {
		if sp := bytes.IndexByte(rest[:min(len(rest), 40)], ' '); sp > 0 {
			h.stamp, rest = rest[:sp], rest[sp+1:]
		}
	}
	// L mmdd hh:mm:ss.uuuuuu
	if len(rest) < 24 || !isLevel(rest[0]) || rest[5] != ' ' || rest[8] != ':' || rest[11] != ':' || rest[14] != '.' ||
		!isDigit(rest[1]) || !isDigit(rest[4]) || !isDigit(rest[6]) || !isDigit(rest[13]) {
		h.msg = rest
		return h
	}
	end := bytes.IndexByte(rest[21:min(len(rest), 200)], ']')
	if end < 0 {
		h.msg = rest
		return h
	}
	h.klog = rest[:21]
	msg := rest[21+end+1:]
	if len(msg) > 0 && msg[0] == ' ' {
		msg = msg[1:]
	}
	h.msg = msg
	return h
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isLevel(c byte) bool { return c == 'I' || c == 'W' || c == 'E' || c == 'F' }

// time returns the line's time: the RFC 3339 prefix when there is one, else the
// klog header's, in year 0 (unknown; see inspect.ResolveLogYear). Zero when neither parses.
func (h header) time() time.Time {
	if h.stamp != nil {
		if t, err := time.Parse(time.RFC3339Nano, string(h.stamp)); err == nil {
			return t.UTC()
		}
	}
	if h.klog == nil {
		return time.Time{}
	}
	k := h.klog
	num := func(i, n int) int {
		v := 0
		for _, c := range k[i : i+n] {
			if !isDigit(c) {
				return -1
			}
			v = v*10 + int(c-'0')
		}
		return v
	}
	mo, d, hh, mm, ss, us := num(1, 2), num(3, 2), num(6, 2), num(9, 2), num(12, 2), num(15, 6)
	if mo < 1 || mo > 12 || d < 1 || d > 31 || hh < 0 || hh > 23 || mm < 0 || mm > 59 || ss < 0 || ss > 60 || us < 0 {
		return time.Time{}
	}
	return time.Date(0, time.Month(mo), d, hh, mm, ss, us*1000, time.UTC)
}
