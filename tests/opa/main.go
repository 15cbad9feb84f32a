// Command opaeval evaluates conftest-style Rego policies with OPA's own engine, as the oracle the
// policy conformance tests compare ctl against.
//
// Usage: opaeval POLICY.rego INPUT.json
//
// It prints one JSON object: for each of the rules deny, warn and violation that the policy's package
// defines, the rule's value (a set, printed as an array); a rule left undefined is omitted.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: opaeval POLICY.rego INPUT.json")
		os.Exit(2)
	}
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func run(policyPath, inputPath string) error {
	source, err := os.ReadFile(policyPath)
	if err != nil {
		return err
	}
	module, err := ast.ParseModule(policyPath, string(source))
	if err != nil {
		return err
	}
	raw, err := os.ReadFile(inputPath)
	if err != nil {
		return err
	}
	var input interface{}
	if err := json.Unmarshal(raw, &input); err != nil {
		return err
	}
	results := map[string]interface{}{}
	for _, rule := range []string{"deny", "warn", "violation"} {
		query := module.Package.Path.String() + "." + rule
		rs, err := rego.New(
			rego.Query(query),
			rego.Module(policyPath, string(source)),
			rego.Input(input),
		).Eval(context.Background())
		if err != nil {
			return err
		}
		if len(rs) == 0 || len(rs[0].Expressions) == 0 {
			continue
		}
		results[rule] = rs[0].Expressions[0].Value
	}
	out, err := json.Marshal(results)
	if err != nil {
		return err
	}
	fmt.Println(string(out))
	return nil
}
