"""Wire definitions of the provider plugin protocol and the message classes generated from them."""
