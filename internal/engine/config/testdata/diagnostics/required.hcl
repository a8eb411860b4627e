stream "IN" {
  storage = "memory"
}

source "in" {
  subject = "in.x"
}

operator "risk" {
}

sink "out" {
  mode = "at_least_once"
}
