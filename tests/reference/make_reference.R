# Reference values from R's `energy` package for tests/test_energy.py.
#
# Usage (from the repository root):
#     Rscript tests/reference/make_reference.R [output.json]
# Default output: r_reference.json next to this script.
#
# The data are drawn here with set.seed() and written into the JSON with 17
# significant digits (exact round trip of doubles), so the Python tests never
# need to reproduce R's random number generator.
#
# Contents:
#   data     : named samples (matrices as lists of rows, vectors as lists)
#   edist    : energy::edist(pooled, sizes, alpha) for 2 and 3 samples,
#              alpha = 1 and 0.5 (values in lower-triangle order 12, 13, 23)
#   etest    : energy::eqdist.etest statistic (alpha = 1 on the data; alpha = 0.5
#              through distance = TRUE on dist(x)^0.5) and its p-value with
#              R = 199 replicates (information only: it depends on R's RNG)
#   kgroups  : energy::kgroups W and labels (k = 3), with W recomputed by hand
#   within   : W = sum_j (1 / (2 s_j)) sum_{x, y in C_j} w_x w_y |x - y|^alpha by
#              hand from dist() for fixed labellings, with and without weights
#
# energy::eqdist.etest has no exponent argument; the alpha = 0.5 statistics are
# obtained by passing the distance matrix dist(x)^0.5.

suppressMessages(library(energy))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1) {
  out_path <- args[1]
} else {
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "."
  out_path <- file.path(here, "r_reference.json")
}

# ---- minimal JSON writer (jsonlite may be absent) ----------------------------
num <- function(x) sprintf("%.17g", x)
jvec <- function(x) paste0("[", paste(num(x), collapse = ", "), "]")
jint <- function(x) paste0("[", paste(sprintf("%d", as.integer(x)), collapse = ", "), "]")
jmat <- function(m) paste0("[", paste(apply(m, 1, jvec), collapse = ",\n      "), "]")
jstr <- function(s) paste0("\"", s, "\"")
jstrs <- function(s) paste0("[", paste(jstr(s), collapse = ", "), "]")
jobj <- function(fields) {
  paste0("{", paste(paste0(jstr(names(fields)), ": ", unlist(fields)), collapse = ", "), "}")
}

# ---- data ---------------------------------------------------------------------
set.seed(20240607)
data <- list(
  A = matrix(rnorm(8 * 3), 8, 3),
  B = matrix(rnorm(10 * 3, mean = 0.7), 10, 3),
  C = matrix(rnorm(6 * 3, sd = 2), 6, 3),
  u1 = rnorm(7),
  u2 = rexp(9)
)

pool <- function(names) {
  parts <- lapply(data[names], function(v) if (is.vector(v)) matrix(v, ncol = 1) else v)
  do.call(rbind, parts)
}
sizes_of <- function(names) sapply(data[names], NROW)

by_hand_W <- function(x, labels, alpha, w = rep(1, NROW(x))) {
  d <- as.matrix(dist(x))^alpha
  total <- 0
  for (j in unique(labels)) {
    ii <- which(labels == j)
    s <- sum(w[ii])
    total <- total + sum(outer(w[ii], w[ii]) * d[ii, ii, drop = FALSE]) / (2 * s)
  }
  total
}

# ---- edist and eqdist.etest ----------------------------------------------------
groups <- list(c("A", "B"), c("A", "B", "C"), c("u1", "u2"))
edist_rows <- c()
etest_rows <- c()
for (g in groups) {
  x <- pool(g)
  sz <- sizes_of(g)
  for (alpha in c(1, 0.5)) {
    e <- as.vector(edist(x, sizes = sz, alpha = alpha))
    edist_rows <- c(edist_rows, jobj(list(
      samples = jstrs(g), alpha = num(alpha), value = jvec(e))))
    set.seed(1)
    if (alpha == 1) {
      t <- eqdist.etest(x, sizes = sz, R = 199)
    } else {
      t <- eqdist.etest(dist(x)^alpha, sizes = sz, distance = TRUE, R = 199)
    }
    etest_rows <- c(etest_rows, jobj(list(
      samples = jstrs(g), alpha = num(alpha),
      statistic = num(unname(t$statistic)),
      pvalue_R199 = num(t$p.value), R = "199")))
  }
}

# ---- kgroups W -------------------------------------------------------------------
x <- pool(c("A", "B", "C"))
set.seed(3)
fit <- kgroups(x, k = 3, nstart = 5)
kg_row <- jobj(list(
  samples = jstrs(c("A", "B", "C")), k = "3",
  labels = jint(fit$cluster), W = num(fit$W),
  W_by_hand = num(by_hand_W(x, fit$cluster, 1))))

# ---- W by hand for fixed labellings ----------------------------------------------
n <- NROW(x)
lab_samples <- rep(1:3, sizes_of(c("A", "B", "C")))
lab_cyclic <- rep(1:4, length.out = n)
wts <- rep(c(1, 2, 0.5, 3), length.out = n)
within_rows <- c()
for (alpha in c(1, 0.5)) {
  for (lab in list(lab_samples, lab_cyclic)) {
    within_rows <- c(within_rows, jobj(list(
      samples = jstrs(c("A", "B", "C")), alpha = num(alpha),
      labels = jint(lab), W = num(by_hand_W(x, lab, alpha)),
      sample_weight = "null")))
    within_rows <- c(within_rows, jobj(list(
      samples = jstrs(c("A", "B", "C")), alpha = num(alpha),
      labels = jint(lab), W = num(by_hand_W(x, lab, alpha, wts)),
      sample_weight = jvec(wts))))
  }
}

# ---- write --------------------------------------------------------------------
data_json <- sapply(names(data), function(nm) {
  v <- data[[nm]]
  paste0("    ", jstr(nm), ": ", if (is.vector(v)) jvec(v) else jmat(v))
})
meta <- jobj(list(
  R_version = jstr(paste(R.version$major, R.version$minor, sep = ".")),
  energy_version = jstr(format(packageVersion("energy"))),
  generator = jstr("tests/reference/make_reference.R")))
json <- paste0(
  "{\n  \"meta\": ", meta, ",\n",
  "  \"data\": {\n", paste(data_json, collapse = ",\n"), "\n  },\n",
  "  \"edist\": [\n    ", paste(edist_rows, collapse = ",\n    "), "\n  ],\n",
  "  \"etest\": [\n    ", paste(etest_rows, collapse = ",\n    "), "\n  ],\n",
  "  \"kgroups\": [\n    ", kg_row, "\n  ],\n",
  "  \"within\": [\n    ", paste(within_rows, collapse = ",\n    "), "\n  ]\n}\n")
writeLines(json, out_path, sep = "")
cat("wrote", out_path, "\n")
