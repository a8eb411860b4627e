# Operators feeding operators: score reads enrich's output, re-keyed by customer.
name = "fraud"

stream "PAYMENTS" {
  subjects = ["payments.>"]
}

stream "ALERTS" {
  subjects = ["alerts.>"]
}

source "payments" {
  stream = "PAYMENTS"
}

source "customers" {
  stream = "PAYMENTS"
  subject = "payments.customers"
}

operator "score" {
  module = "score.wasm"
  inputs = ["enrich.out", "customers"]
  key {
    json_field = "customer"
  }
  outputs = { alerts = "alerts" }
}

operator "enrich" {
  module      = "enrich.wasm"
  inputs      = ["payments"]
  parallelism = 2
  key {
    json_field = "account"
  }
  internal_outputs = ["out"]
}

operator "audit" {
  module = "audit.wasm"
  inputs = ["score.alerts", "enrich.out"]
  input "score.alerts" {
    key {
      header = "Customer"
    }
  }
  input "enrich.out" {
    key {
      header = "Wasmstream-Key"
    }
  }
  outputs = { out = "audit" }
}

sink "alerts" {
  subject = "alerts.all"
}

sink "audit" {
  subject = "alerts.audit"
}
