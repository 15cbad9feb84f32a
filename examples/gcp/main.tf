# A static site bucket on Cloud Storage, written the way Terraform users already write it.
# `make demo-gcp` runs it against fake-gcs-server (STORAGE_EMULATOR_HOST); against Cloud Storage,
# set project below (and pick a globally unique bucket name).

provider "google" {
  project = var.project
  region  = "us-central1"
}

variable "project" {
  type    = string
  default = "ctl-demo"
}

resource "google_storage_bucket" "site" {
  name          = "ctl-demo-site"
  location      = "US-CENTRAL1"
  force_destroy = true

  uniform_bucket_level_access = true

  versioning {
    enabled = true
  }
}

resource "google_storage_bucket_object" "index" {
  bucket       = google_storage_bucket.site.name
  name         = "index.html"
  source       = "${path.module}/site/index.html"
  content_type = "text/html"
}

resource "google_storage_bucket_object" "robots" {
  bucket   = google_storage_bucket.site.name
  name     = "robots.txt"
  content  = "User-agent: *\nDisallow:\n"
  metadata = { owner = "web-team" }
}

output "bucket_url" {
  value = google_storage_bucket.site.url
}

output "index_md5" {
  value = google_storage_bucket_object.index.md5hash
}
