// Command terraform-provider-misbehave is a test provider that breaks the
// plugin protocol's promises on request, so the tests can show what a client
// does when a provider misbehaves. Its one resource, misbehave_thing, lives
// only in state; the argument "trick" names the misbehaviour:
//
//	unknown_after_apply  ApplyResourceChange answers with an unknown id
//	inconsistent         ApplyResourceChange answers with a different name
//	bad_plan             PlanResourceChange plans a name the configuration does not set
//	exit_in_create       the process exits inside ApplyResourceChange of a create
//	panic_in_create      the process panics inside ApplyResourceChange of a create
//	apply_warn_secret    ApplyResourceChange warns, quoting "secret" and terminal escapes
//	apply_error_secret   the same as an error, after making the object
//	slow                 a create waits a minute, unless StopProvider cancels it
//	stubborn             a create waits a minute, StopProvider or not
//	slow_plan            PlanResourceChange waits a minute, unless StopProvider cancels it
//	diagnostics:N        ValidateResourceConfig answers with N errors
//	warnings:N           ValidateResourceConfig answers with N different warnings
//	warn_secret          ValidateResourceConfig warns, quoting "secret" and terminal escapes
//	error_escape         ValidateResourceConfig fails with terminal escapes in its text
//
// The provider configuration's "trick" breaks ConfigureProvider's answer:
//
//	warn_token           a warning quoting "token" (sensitive), "label" and terminal escapes
//	refuse_token         the same as an error
//
// With MISBEHAVE_HANG=1 in its environment the process never prints its
// handshake; MISBEHAVE_STARTS names a file it appends a line to on every start,
// MISBEHAVE_EVENTS one it tells of slow calls starting and being stopped.
package main

import (
	"log"
	"os"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6"
	"github.com/hashicorp/terraform-plugin-go/tfprotov6/tf6server"
)

// Address is the provider's source address as configurations name it.
const Address = "registry.terraform.io/ctltest/misbehave"

func main() {
	if starts := os.Getenv("MISBEHAVE_STARTS"); starts != "" {
		if f, err := os.OpenFile(starts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644); err == nil {
			_, _ = f.WriteString("start\n")
			_ = f.Close()
		}
	}
	if os.Getenv("MISBEHAVE_HANG") == "1" {
		for {
			time.Sleep(time.Hour)
		}
	}
	inner := providerserver.NewProtocol6(newProvider())
	err := tf6server.Serve(Address, func() tfprotov6.ProviderServer {
		return &wrapper{ProviderServer: inner()}
	})
	if err != nil {
		log.Fatal(err)
	}
}
