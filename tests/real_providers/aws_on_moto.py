"""HashiCorp's aws provider pointed at a moto server: the block the aws lifecycle test
(``test_aws_plugin_vs_terraform.py``) and the benchmark ``bench/aws_moto.py`` both start from, so the
benchmark measures the configuration the test proves ctl and Terraform agree on.

The server's URL is the ``moto`` variable (``TF_VAR_moto`` or a ``.tfvars`` file), so one text serves
any port; the credentials are moto's and the checks that would reach AWS itself are off.
"""

from __future__ import annotations

AWS_ON_MOTO = r'''
terraform {
  required_providers {
    aws = { source = "hashicorp/aws" }
  }
}

variable "moto" {
  type = string
}

provider "aws" {
  region                      = "us-east-1"
  access_key                  = "testing"
  secret_key                  = "testing"
  skip_credentials_validation = true
  skip_requesting_account_id  = true
  skip_metadata_api_check     = true
  s3_use_path_style           = true
  endpoints {
    s3       = var.moto
    sqs      = var.moto
    sns      = var.moto
    iam      = var.moto
    dynamodb = var.moto
    sts      = var.moto
  }
}
'''
