package incluster

import "strings"

// refPrefix starts the reference of a plan or a journal kept in ConfigMaps, as
// the journal's header and the apply lock record it.
const refPrefix = "configmap:"

// Ref names the plan or journal NAME kept in ConfigMaps of namespace:
// "configmap:NAMESPACE/NAME".
func Ref(namespace, name string) string { return refPrefix + namespace + "/" + name }

// ParseRef reads a reference Ref wrote.
func ParseRef(ref string) (namespace, name string, ok bool) {
	rest, ok := strings.CutPrefix(ref, refPrefix)
	if !ok {
		return "", "", false
	}
	namespace, name, ok = strings.Cut(rest, "/")
	return namespace, name, ok && namespace != "" && name != ""
}
