# payment-risk, with its operator taken from the registry: "risk" is the newest pushed version.
name     = "payment-risk"
data_dir = "./data-registry"

# Its own embedded server port, so it can run beside pipeline.hcl.
server {
  embedded_port = 14223
}

stream "PAYMENTS" {
  subjects = ["payments.>"]
}

stream "RISK" {
  subjects         = ["risk.>"]
  duplicate_window = "10m"
}

source "payments" {
  stream  = "PAYMENTS"
  subject = "payments.in"
}

operator "risk" {
  module = "risk"
  inputs = ["payments"]
  key {
    json_field = "account"
  }
  config  = jsonencode({ max_cents = 100000000 })
  outputs = { out = "risk-totals" }
}

sink "risk-totals" {
  subject = "risk.totals"
}
