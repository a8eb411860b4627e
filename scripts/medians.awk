# Prints the median of every metric of `go test -bench` output, per benchmark,
# then the ratios named in -v ratios="label,Num,Den,unit,goal;..." (benchmark
# names without the Benchmark prefix). Used by the bench-*.sh scripts.
/^Benchmark/ {
  name = $1; sub(/-[0-9]+$/, "", name)
  if (!(name in seen)) { seen[name] = 1; order[++names] = name }
  for (i = 5; i < NF; i += 2) {
    key = name SUBSEP $(i + 1)
    if (!(key in v)) units[name] = units[name] " " $(i + 1)
    v[key] = v[key] " " $i
  }
}
function median(list,   a, k, i, j, t) {
  k = split(substr(list, 2), a, " ")
  for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
  return (k % 2) ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2
}
END {
  for (n = 1; n <= names; n++) {
    name = order[n]
    printf "  %s\n", name
    k = split(substr(units[name], 2), u, " ")
    for (i = 1; i <= k; i++) {
      m[name, u[i]] = median(v[name, u[i]])
      printf "    %-20s %16.0f   (runs:%s)\n", u[i], m[name, u[i]], v[name, u[i]]
    }
  }
  k = split(ratios, rs, ";")
  for (r = 1; r <= k; r++) {
    split(rs[r], f, ",")
    a = m["Benchmark" f[2], f[4]]; b = m["Benchmark" f[3], f[4]]
    if (b > 0) printf "  %-40s %8.3f   (goal %s)\n", f[1], a / b, f[5]
  }
}
