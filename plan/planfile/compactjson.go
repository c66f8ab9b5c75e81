package planfile

// isCompactJSON reports whether data is one JSON value, valid as encoding/json's
// scanner reads it, with no whitespace outside strings: then json.Compact would
// return it unchanged, and ManifestDigest may hash it as it is. It is a strict
// recognizer: false only sends ManifestDigest the long way (json.Compact, which
// also words any error), so it may refuse what is merely unusual (nesting deeper
// than maxCompactDepth). The grammar is the scanner's: strings take any byte from
// 0x20 up, UTF-8 or not, and the escapes \" \\ \/ \b \f \n \r \t \uXXXX; numbers
// are -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?.
func IsCompactJSON(data []byte) bool {
	i, ok := compactValue(data, 0, 0)
	return ok && i == len(data)
}

// maxCompactDepth is the nesting isCompactJSON follows; encoding/json allows
// 10,000, and a manifest has a few dozen.
const maxCompactDepth = 1000

// compactValue reads the value at data[i:] and returns where it ends.
func compactValue(data []byte, i, depth int) (int, bool) {
	if i >= len(data) {
		return i, false
	}
	switch c := data[i]; {
	case c == '{':
		return compactObject(data, i+1, depth+1)
	case c == '[':
		return compactArray(data, i+1, depth+1)
	case c == '"':
		return compactString(data, i+1)
	case c == '-' || (c >= '0' && c <= '9'):
		return compactNumber(data, i)
	case c == 't':
		return compactLiteral(data, i, "true")
	case c == 'f':
		return compactLiteral(data, i, "false")
	case c == 'n':
		return compactLiteral(data, i, "null")
	}
	return i, false
}

func compactObject(data []byte, i, depth int) (int, bool) {
	if depth > maxCompactDepth {
		return i, false
	}
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return i, false
		}
		var ok bool
		if i, ok = compactString(data, i+1); !ok || i >= len(data) || data[i] != ':' {
			return i, false
		}
		if i, ok = compactValue(data, i+1, depth); !ok || i >= len(data) {
			return i, false
		}
		switch data[i] {
		case ',':
			i++
		case '}':
			return i + 1, true
		default:
			return i, false
		}
	}
}

func compactArray(data []byte, i, depth int) (int, bool) {
	if depth > maxCompactDepth {
		return i, false
	}
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		var ok bool
		if i, ok = compactValue(data, i, depth); !ok || i >= len(data) {
			return i, false
		}
		switch data[i] {
		case ',':
			i++
		case ']':
			return i + 1, true
		default:
			return i, false
		}
	}
}

// compactString reads a string whose opening quote is before data[i] and
// returns the index after its closing quote.
func compactString(data []byte, i int) (int, bool) {
	for i < len(data) {
		c := data[i]
		switch {
		case c == '"':
			return i + 1, true
		case c < 0x20:
			return i, false
		case c == '\\':
			if i+1 >= len(data) {
				return i, false
			}
			switch data[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(data) {
					return i, false
				}
				for _, h := range data[i+2 : i+6] {
					if !isHex(h) {
						return i, false
					}
				}
				i += 6
			default:
				return i, false
			}
		default:
			i++
		}
	}
	return i, false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func compactNumber(data []byte, i int) (int, bool) {
	if data[i] == '-' {
		i++
	}
	switch {
	case i < len(data) && data[i] == '0':
		i++
	case i < len(data) && data[i] >= '1' && data[i] <= '9':
		i = digits(data, i+1)
	default:
		return i, false
	}
	if i < len(data) && data[i] == '.' {
		j := digits(data, i+1)
		if j == i+1 {
			return i, false
		}
		i = j
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		j := digits(data, i)
		if j == i {
			return i, false
		}
		i = j
	}
	return i, true
}

// digits returns the index after the decimal digits from data[i].
func digits(data []byte, i int) int {
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	return i
}

func compactLiteral(data []byte, i int, lit string) (int, bool) {
	if len(data)-i < len(lit) || string(data[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
