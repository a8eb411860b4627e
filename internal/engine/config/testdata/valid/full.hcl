# Every setting written out: the reference example of docs/config.md.
name     = "payment-risk"
data_dir = "./state"

server {
  url         = "nats://127.0.0.1:4222"
  credentials = "secrets/risk.creds"
}

log {
  format = "json"
  level  = "debug"
}

checkpoint {
  interval          = "30s"
  timeout           = "5m"
  min_pause         = "1s"
  mode              = "aligned"
  alignment_timeout = "10s"
  retain            = 5
}

cluster {
  replicas       = 5
  worker_timeout = "4s"
  lease_ttl      = "12s"
  stabilization  = "1s"
}

stream "PAYMENTS" {
  subjects         = ["payments.>"]
  duplicate_window = "2m"
  storage          = "file"
  replicas         = 3
}

stream "RISK" {
  subjects = ["risk.>"]
  storage  = "memory"
}

source "payments" {
  stream         = "PAYMENTS"
  subject        = "payments.in"
  start_sequence = 100
}

operator "risk" {
  module        = "operator/risk.wasm"
  state_version = "3"
  inputs        = ["payments"]
  key {
    json_field = "account.id"
  }
  parallelism     = 4
  max_parallelism = 256
  config          = jsonencode({ dedup = true })
  outputs         = { out = "risk-totals", alerts = "risk-alerts" }

  dead_letter_subject = "wasmstream.dlq.payment-risk.risk"
  limits {
    memory_pages         = 1024
    batch_timeout        = "2s"
    batch_size           = 256
    max_value_bytes      = 65536
    max_emits_per_record = 8
    max_table_elements   = 5000
  }
}

sink "risk-totals" {
  subject = "risk.totals"
  mode    = "at_least_once"
}

sink "risk-alerts" {
  subject = "risk.alerts"
}
