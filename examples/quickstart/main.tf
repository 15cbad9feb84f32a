# A small platform on the embedded default: local state, local adapters, no cloud account.
terraform {
  required_version = ">= 1.5"
}

variable "environment" {
  type        = string
  default     = "dev"
  description = "Deployment environment; part of every name."

  validation {
    condition     = contains(["dev", "staging", "prod"], var.environment)
    error_message = "environment must be dev, staging or prod."
  }
}

variable "services" {
  type = map(object({
    port     = number
    replicas = optional(number, 1)
  }))
  default = {
    api    = { port = 8080, replicas = 2 }
    worker = { port = 9090 }
  }
}

locals {
  prefix = "demo-${var.environment}"
  labels = { environment = var.environment, managed_by = "ctl" }
}

resource "random_id" "suffix" {
  byte_length = 4
}

resource "random_password" "admin" {
  length  = 20
  special = false
}

module "service" {
  source   = "./modules/service"
  for_each = var.services

  name     = "${local.prefix}-${each.key}-${random_id.suffix.hex}"
  port     = each.value.port
  replicas = each.value.replicas
  labels   = local.labels
  out_dir  = "${path.module}/out"
}

resource "local_sensitive_file" "admin_credentials" {
  filename = "${path.module}/out/admin.env"
  content  = "ADMIN_PASSWORD=${random_password.admin.result}\n"
}

resource "terraform_data" "inventory" {
  input = {
    environment = var.environment
    services    = { for name, svc in module.service : name => svc.endpoint }
  }
}

output "endpoints" {
  value       = { for name, svc in module.service : name => svc.endpoint }
  description = "Where each service listens."
}

output "config_files" {
  value = sort(flatten([for svc in module.service : svc.files]))
}

output "admin_password" {
  value     = random_password.admin.result
  sensitive = true
}
