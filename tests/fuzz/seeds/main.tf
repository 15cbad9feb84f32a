terraform {
  required_version = ">= 1.0"
}
variable "names" {
  type    = list(string)
  default = ["a", "b"]
}
locals {
  upper = [for n in var.names : upper(n) if n != ""]
  index = { for i, n in var.names : n => i... }
  text  = <<-EOT
    %{ for n in var.names ~}
    item ${n}
    %{ endfor ~}
  EOT
}
resource "terraform_data" "x" {
  for_each = toset(var.names)
  input    = { name = each.key, pos = index(var.names, each.key) * 1e2 }
  lifecycle {
    ignore_changes = [input]
  }
}
output "o" {
  value     = try(local.index["a"][0], null) != null ? "${local.upper[0]}-${length(local.text)}" : "none"
  sensitive = false
}
