name = "replicas"

# The embedded server is one node: a replicated stream needs server.url.
stream "PAYMENTS" {
  subjects = ["payments.>"]
  replicas = 3
}

stream "WIDE" {
  subjects = ["wide.>"]
  replicas = 7
}

source "payments" {
  stream = "PAYMENTS"
}

operator "risk" {
  module  = "risk.wasm"
  inputs  = ["payments"]
  key {
    json_field = "account"
  }
  outputs = { out = "totals" }
}

sink "totals" {
  subject = "risk.totals"
}
