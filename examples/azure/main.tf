# Blob storage and a queue on an Azure storage account, written the way Terraform users write it.
# `make demo-azure` runs it against Azurite; the storage connection comes from
# AZURE_STORAGE_CONNECTION_STRING (or storage_connection_string in the provider block).

provider "azurerm" {
  features {}
}

variable "account" {
  type    = string
  default = "devstoreaccount1" # Azurite's development account
}

resource "azurerm_storage_container" "releases" {
  name                  = "releases"
  storage_account_name  = var.account
  container_access_type = "private"
  metadata              = { team = "build" }
}

resource "azurerm_storage_blob" "notes" {
  name                   = "v1/NOTES.md"
  storage_account_name   = var.account
  storage_container_name = azurerm_storage_container.releases.name
  type                   = "Block"
  source                 = "${path.module}/files/NOTES.md"
  content_type           = "text/markdown"
}

resource "azurerm_storage_blob" "build_log" {
  name                   = "v1/build.log"
  storage_account_name   = var.account
  storage_container_name = azurerm_storage_container.releases.name
  type                   = "Append"
  source_content         = "build started\n"
  metadata               = { pipeline = "demo" }
}

resource "azurerm_storage_queue" "jobs" {
  name                 = "release-jobs"
  storage_account_name = var.account
  metadata             = { purpose = "release" }
}

output "notes_url" {
  value = azurerm_storage_blob.notes.url
}

output "queue_id" {
  value = azurerm_storage_queue.jobs.id
}
