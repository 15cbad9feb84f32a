package main

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// Terraform 1.0.3 cannot call provider-defined functions, so the protocol-6 server is asked directly.
func TestReverseIsAdvertisedAndCallable(t *testing.T) {
	ctx := context.Background()
	server := providerserver.NewProtocol6(newProvider())()

	schema, err := server.GetProviderSchema(ctx, &tfprotov6.GetProviderSchemaRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := schema.Functions["reverse"]; !ok {
		t.Fatalf("GetProviderSchema lists no reverse function; functions: %v", schema.Functions)
	}

	arg, err := tfprotov6.NewDynamicValue(tftypes.String, tftypes.NewValue(tftypes.String, "héllo"))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := server.CallFunction(ctx, &tfprotov6.CallFunctionRequest{
		Name:      "reverse",
		Arguments: []*tfprotov6.DynamicValue{&arg},
	})
	if err != nil {
		t.Fatal(err)
	}
	if resp.Error != nil {
		t.Fatalf("reverse failed: %s", resp.Error.Text)
	}
	value, err := resp.Result.Unmarshal(tftypes.String)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	if err := value.As(&got); err != nil {
		t.Fatal(err)
	}
	if got != "olléh" {
		t.Fatalf("reverse(%q) = %q, want %q", "héllo", got, "olléh")
	}
}
