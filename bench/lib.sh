# lib.sh -- what the bench's scripts share (sourced by run.sh, compare.sh
# and frames.sh): the programs, their quick sizes, and the median in awk.

# Programs: the realistic ones, then fib (the worst case, kept out of the
# geometric mean).  Quick sizes are the programs' arguments with --quick.
progs=(binary_trees nbody spectral_norm fannkuch richards oo_sim json
       coroutine_pipeline fib)
declare -A quick_args=(
  [binary_trees]="8" [nbody]="5000" [spectral_norm]="60" [fannkuch]="7 1"
  [richards]="1" [oo_sim]="10" [json]="20" [coroutine_pipeline]="5000"
  [fib]="20")

# An awk function, put before a program's own text: median(list), the
# median of the numbers of a space-separated list (0 for none).
awk_median='
function median(list,   a, n, i, j, t) {
  n = split(list, a, " ")
  for (i = 2; i <= n; i++) {            # insertion sort: n is small
    t = a[i] + 0
    for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]
    a[j + 1] = t
  }
  if (n == 0) return 0
  return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
}'
