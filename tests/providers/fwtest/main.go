// Command terraform-provider-fwtest is a test provider built on the plugin
// framework: it speaks protocol 6 and keeps its objects as JSON files.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/hashicorp/terraform-plugin-framework/providerserver"
)

// Address is the provider's source address as configurations name it.
const Address = "registry.terraform.io/ctltest/fwtest"

var version = "1.0.0"

func main() {
	debug := flag.Bool("debug", false, "run in debug mode (print a reattach config instead of a handshake)")
	flag.Parse()
	err := providerserver.Serve(context.Background(), newProvider, providerserver.ServeOpts{
		Address:         Address,
		Debug:           *debug,
		ProtocolVersion: 6,
	})
	if err != nil {
		log.Fatal(err)
	}
}
