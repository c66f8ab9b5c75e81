package fleetengines

import (
	"fmt"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
	"github.com/google/cel-go/ext"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/cel/library"
)

// ConditionRule is one conditionRules entry of a manifestConfigs entry.
type ConditionRule struct {
	Condition      string
	Type           string // CEL or WellKnownConditions
	CelExpressions []string
	Message        string
}

// The reasons the agent gives a rule's condition (work/v1 types.go).
const (
	ReasonRuleEvaluated       = "ConditionRuleEvaluated"
	ReasonRuleExpressionError = "ConditionRuleExpressionError"
	ReasonRuleInternalError   = "ConditionRuleInternalError"
	ReasonRuleInvalid         = "ConditionRuleInvalid"
)

// celEnv is the agent's rule environment (ocm pkg/work/spoke/conditions/reader.go
// NewConditionReader and celEnv): the variable object of dynamic type, the
// base options of open-cluster-management.io/sdk-go pkg/cel/common/values.go
// (BaseEnvOpts: optional types, ext.Strings, and Kubernetes' lists, regex,
// URLs, quantity, IP, CIDR, format and semver libraries) and sdk-go's
// hasConditions (pkg/cel/library/conditions.go).
func celEnv() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("object", cel.DynType),
		cel.OptionalTypes(), ext.Strings(), library.Lists(), library.Regex(), library.URLs(), library.Quantity(),
		library.IP(), library.CIDR(), library.Format(), library.SemverLib(),
		cel.Function("hasConditions", cel.Overload("status_has_conditions", []*cel.Type{cel.DynType}, cel.BoolType,
			cel.UnaryBinding(hasConditions))),
	)
}

// hasConditions is sdk-go's: true when the map has a non-empty list under
// "conditions".
func hasConditions(v ref.Val) ref.Val {
	m, ok := v.(traits.Mapper)
	if !ok {
		return types.Bool(false)
	}
	c, found := m.Find(types.String("conditions"))
	if !found {
		return types.Bool(false)
	}
	l, ok := c.(traits.Lister)
	if !ok {
		return types.Bool(false)
	}
	return types.Bool(l.Size() != types.IntZero)
}

// Conditions evaluates rules on obj (the live object's content) as the agent
// does (reader.go EvaluateConditions and getConditionByCelRule): a CEL rule is
// True when every expression is true, False at the first false one; an
// expression that does not compile, fails to evaluate or is not a bool makes
// it False with ReasonRuleExpressionError (so a rule that errors reads as
// False, never as Unknown). WellKnownConditions rules are restated for
// Complete on Jobs only (pkg/work/spoke/conditions/rules/rule.go): other
// kinds and conditions give no condition. The cost budget is not restated.
func Conditions(obj map[string]any, rules []ConditionRule) []metav1.Condition {
	env, err := celEnv()
	var out []metav1.Condition
	for _, r := range rules {
		switch r.Type {
		case "CEL":
		case "WellKnownConditions":
			if r.Condition != "Complete" || !isJob(obj) {
				continue
			}
			r.CelExpressions = []string{`hasConditions(object.status) ? object.status.conditions.filter(c, c.type == 'Complete' || c.type == 'Failed').exists(c, c.status == 'True') : false`}
		default:
			out = append(out, metav1.Condition{Type: r.Condition, Status: metav1.ConditionUnknown, Reason: ReasonRuleInvalid,
				Message: fmt.Sprintf("unrecognized condition rule type %s", r.Type)})
			continue
		}
		c := metav1.Condition{Type: r.Condition, Status: metav1.ConditionTrue, Reason: ReasonRuleEvaluated}
		if err != nil {
			c.Status, c.Reason, c.Message = metav1.ConditionUnknown, ReasonRuleInternalError, err.Error()
			out = append(out, c)
			continue
		}
		for _, expr := range r.CelExpressions {
			ok, reason, err := evalBool(env, expr, obj)
			if err != nil || !ok {
				c.Status, c.Reason = metav1.ConditionFalse, reason
				if err != nil {
					c.Message = err.Error()
				}
				break
			}
		}
		if c.Message == "" {
			c.Message = r.Message
		}
		if c.Message == "" {
			if c.Status == metav1.ConditionTrue {
				c.Message = "Manifest is " + r.Condition
			} else {
				c.Message = "Manifest is not " + r.Condition
			}
		}
		out = append(out, c)
	}
	return out
}

func isJob(obj map[string]any) bool {
	return obj["apiVersion"] == "batch/v1" && obj["kind"] == "Job"
}

func evalBool(env *cel.Env, expr string, obj map[string]any) (bool, string, error) {
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		return false, ReasonRuleExpressionError, iss.Err()
	}
	prg, err := env.Program(ast)
	if err != nil {
		return false, ReasonRuleInternalError, err
	}
	out, _, err := prg.Eval(map[string]any{"object": obj})
	if err != nil {
		return false, ReasonRuleExpressionError, err
	}
	b, ok := out.Value().(bool)
	if !ok {
		return false, ReasonRuleExpressionError, fmt.Errorf("expected bool result, got %T", out.Value())
	}
	return b, ReasonRuleEvaluated, nil
}
