name = "payment-risk"

stream "PAYMENTS" {
  subjects = ["payments.>"]
}

stream "RISK" {
  subjects = ["risk.>"]
}

source "payments" {
  stream = "PAYMENTS"
}

source "orders" {
  stream = "ORDERS"
}

operator "risk" {
  module          = "risk.wasm"
  inputs          = ["paymnts", "payments", "payments"]
  key {
    json_field = "account"
  }
  outputs = { out = "risk-total", alerts = "risk-alerts" }
}

sink "risk-totals" {
  subject = "risk.totals"
}

sink "risk-alerts" {
  subject = "risk.alerts"
}
