# Reads the output of scripts/bench-compare.sh run on
# BenchmarkSinkThroughput/(at_least_once|transactional) and prints, per
# round and side, both modes' records/s and the transactional /
# at_least_once ratio of that invocation, then per side the medians and
# ranges. Used by scripts/bench-sinks-compare.sh.
/^== round/ {
  load = $0; sub(/.*\(load /, "", load); sub(/\)/, "", load)
  loads[$3 " " $4] = load
}
/^(base|head) BenchmarkSinkThroughput\// {
  mode = $2; sub(/^BenchmarkSinkThroughput\//, "", mode); sub(/-[0-9]+$/, "", mode)
  for (i = 1; i <= NF; i++) if ($i == "records/s") rs[$1 " " round_of[$1] " " mode] = $(i - 1)
}
/^== round/ { round_of[$4] = $3; if ($3 > rounds) rounds = $3 }
function sort(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t } }
function median(a, n) { sort(a, n); return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
END {
  split("base head", sides, " ")
  for (r = 1; r <= rounds; r++)
    for (s = 1; s <= 2; s++) {
      side = sides[s]; a = rs[side " " r " at_least_once"]; t = rs[side " " r " transactional"]
      if (a == "" || t == "") continue
      printf "round %d %-4s (load %s): at_least_once %6d  transactional %6d  ratio %.3f\n", r, side, loads[r " " side], a, t, t / a
      n[side]++; A[side, n[side]] = a; T[side, n[side]] = t; Q[side, n[side]] = t / a
    }
  for (s = 1; s <= 2; s++) {
    side = sides[s]; k = n[side]
    if (!k) continue
    for (i = 1; i <= k; i++) { x[i] = A[side, i]; y[i] = T[side, i]; z[i] = Q[side, i] }
    ma = median(x, k); mt = median(y, k); mq = median(z, k)
    printf "%s, %d rounds: at_least_once median %d (%d-%d), transactional median %d (%d-%d), ratio median %.3f (%.3f-%.3f), ratio of the medians %.3f\n",
      side, k, ma, x[1], x[k], mt, y[1], y[k], mq, z[1], z[k], mt / ma
  }
}
