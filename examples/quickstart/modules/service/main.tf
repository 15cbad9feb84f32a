variable "name" {
  type = string
}

variable "port" {
  type = number
}

variable "replicas" {
  type    = number
  default = 1
}

variable "labels" {
  type    = map(string)
  default = {}
}

variable "out_dir" {
  type = string
}

resource "local_file" "config" {
  count    = var.replicas
  filename = "${var.out_dir}/${var.name}-${count.index}.conf"
  content  = <<-EOT
    # ${var.name}, replica ${count.index}
    listen = ${var.port + count.index}
    %{~ for key, value in var.labels }
    label.${key} = ${value}
    %{~ endfor }
  EOT
}

output "endpoint" {
  value = "http://localhost:${var.port}"
}

output "files" {
  value = local_file.config[*].filename
}
