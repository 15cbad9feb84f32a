# A small AWS stack: a private, versioned, encrypted bucket with an object; an SNS topic feeding an
# SQS queue; a DynamoDB table; and an IAM role allowed to use them. `make demo-aws` runs it against
# a local moto server; against AWS, run `ctl init && ctl apply` with your usual AWS credentials.

variable "prefix" {
  type    = string
  default = "ctl-demo"
}

variable "region" {
  type    = string
  default = "us-east-1"
}

provider "aws" {
  region = var.region

  default_tags {
    tags = { project = "ctl-demo" }
  }
}

data "aws_caller_identity" "current" {}

locals {
  account_id = data.aws_caller_identity.current.account_id
  queue_name = "${var.prefix}-events"
}

# ---- storage -------------------------------------------------------------------------------------

resource "aws_s3_bucket" "site" {
  bucket        = "${var.prefix}-${local.account_id}-site"
  force_destroy = true
}

resource "aws_s3_bucket_versioning" "site" {
  bucket = aws_s3_bucket.site.id
  versioning_configuration {
    status = "Enabled"
  }
}

resource "aws_s3_bucket_server_side_encryption_configuration" "site" {
  bucket = aws_s3_bucket.site.id
  rule {
    apply_server_side_encryption_by_default {
      sse_algorithm = "AES256"
    }
  }
}

resource "aws_s3_bucket_public_access_block" "site" {
  bucket                  = aws_s3_bucket.site.id
  block_public_acls       = true
  block_public_policy     = true
  ignore_public_acls      = true
  restrict_public_buckets = true
}

resource "aws_s3_object" "index" {
  bucket       = aws_s3_bucket.site.id
  key          = "index.html"
  content      = "<h1>Hello from ctl</h1>\n"
  content_type = "text/html"
  tags         = { kind = "page" }

  depends_on = [aws_s3_bucket_versioning.site]
}

# ---- messaging: topic -> queue -------------------------------------------------------------------

resource "aws_sns_topic" "events" {
  name = "${var.prefix}-events"
}

resource "aws_sqs_queue" "events" {
  name                       = local.queue_name
  visibility_timeout_seconds = 60
  message_retention_seconds  = 86400

  # SNS may deliver to the queue, but only messages from this topic.
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "sns.amazonaws.com" }
      Action    = "sqs:SendMessage"
      Resource  = "arn:aws:sqs:${var.region}:${local.account_id}:${local.queue_name}"
      Condition = { ArnEquals = { "aws:SourceArn" = aws_sns_topic.events.arn } }
    }]
  })
}

resource "aws_sns_topic_subscription" "events" {
  topic_arn            = aws_sns_topic.events.arn
  protocol             = "sqs"
  endpoint             = aws_sqs_queue.events.arn
  raw_message_delivery = true
}

# ---- data ------------------------------------------------------------------------------------------

resource "aws_dynamodb_table" "items" {
  name         = "${var.prefix}-items"
  billing_mode = "PAY_PER_REQUEST"
  hash_key     = "id"

  attribute {
    name = "id"
    type = "S"
  }
}

# ---- identity ------------------------------------------------------------------------------------

resource "aws_iam_role" "app" {
  name        = "${var.prefix}-app"
  description = "Runs the demo application"
  assume_role_policy = jsonencode({
    Version = "2012-10-17"
    Statement = [{
      Effect    = "Allow"
      Principal = { Service = "lambda.amazonaws.com" }
      Action    = "sts:AssumeRole"
    }]
  })
}

resource "aws_iam_role_policy" "app" {
  name = "use-demo-resources"
  role = aws_iam_role.app.name
  policy = jsonencode({
    Version = "2012-10-17"
    Statement = [
      { Effect = "Allow", Action = ["s3:GetObject"], Resource = "${aws_s3_bucket.site.arn}/*" },
      { Effect = "Allow", Action = ["sqs:ReceiveMessage", "sqs:DeleteMessage"], Resource = aws_sqs_queue.events.arn },
      { Effect = "Allow", Action = ["dynamodb:GetItem", "dynamodb:PutItem"], Resource = aws_dynamodb_table.items.arn },
    ]
  })
}

# ---- outputs -------------------------------------------------------------------------------------

output "account_id" { value = local.account_id }
output "bucket" { value = aws_s3_bucket.site.bucket }
output "object_etag" { value = aws_s3_object.index.etag }
output "queue_url" { value = aws_sqs_queue.events.url }
output "topic_arn" { value = aws_sns_topic.events.arn }
output "table_arn" { value = aws_dynamodb_table.items.arn }
output "role_arn" { value = aws_iam_role.app.arn }
