// Command terraform-provider-sdktest is a test provider built on SDK v2: it
// speaks protocol 5 and keeps its objects as JSON files.
package main

import (
	"flag"

	"github.com/hashicorp/terraform-plugin-sdk/v2/plugin"
)

// Address is the provider's source address as configurations name it.
const Address = "registry.terraform.io/ctltest/sdktest"

func main() {
	debug := flag.Bool("debug", false, "run in debug mode (print a reattach config instead of a handshake)")
	flag.Parse()
	plugin.Serve(&plugin.ServeOpts{ProviderFunc: newProvider, ProviderAddr: Address, Debug: *debug})
}
