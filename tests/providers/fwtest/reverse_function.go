package main

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/function"
)

// reverseFunction is provider::fwtest::reverse(string), a provider-defined function (protocol 6 era).
type reverseFunction struct{}

func newReverseFunction() function.Function { return reverseFunction{} }

func (reverseFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "reverse"
}

func (reverseFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary:     "Reverses a string",
		Description: "Returns the characters of input in reverse order.",
		Parameters:  []function.Parameter{function.StringParameter{Name: "input"}},
		Return:      function.StringReturn{},
	}
}

func (reverseFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var input string
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &input))
	if resp.Error != nil {
		return
	}
	runes := []rune(input)
	for i, j := 0, len(runes)-1; i < j; i, j = i+1, j-1 {
		runes[i], runes[j] = runes[j], runes[i]
	}
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, string(runes)))
}
