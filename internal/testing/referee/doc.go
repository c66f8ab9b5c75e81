// Package referee reads the real cluster-version operator's verdicts
// (../shared/referee beside the repository, or $RECOVER_REFEREE): how the CVO
// writes every object of the real 4.4 payload (merge-cases.jsonl,
// merge-cases-synthetic.jsonl) and when it moves past a ClusterOperator
// (operator-health.jsonl). Tests compare recover's answer with the CVO's, case
// by case, and skip with a clear message where the data is absent. The data
// holds no CVO code: it is what that code decided.
package referee
