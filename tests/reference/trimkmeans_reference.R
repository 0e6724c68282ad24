# Reference runs of R's trimcluster::trimkmeans (trimmed k-means, Cuesta-Albertos,
# Gordaliza & Matran 1997, Ann. Statist. 25(2)) for tests/test_noise_reference.py.
#
# Usage (from the repository root; Debian: apt-get install -y r-cran-trimcluster, as
# benchmarks/setup_trimmed.sh does):
#     Rscript tests/reference/trimkmeans_reference.R [output.json]
# Default output: trimkmeans_reference.json next to this script.
#
# The data are drawn here with set.seed() and written into the JSON with 17
# significant digits (exact round trip of doubles), so the Python test never needs R.
#
# For each data set and each start (k rows of the data as the starting centres,
# drawn with set.seed), trimkmeans(x, k, trim, runs = 1, points = centres) is run and
# written with:
#   first      : the first concentration step as trimkmeans takes it (each point to
#                its nearest given centre, which.min; the n - nin points of largest
#                squared distance set aside, order() being stable), k + 1 = set aside
#   classification : R's final labels, k + 1 for the points trimmed
#   criterion  : R's criterion, sum of the kept points' squared distances to the
#                final means divided by nin = ceiling((1 - trim) n), the number kept
#   nin        : that number
#   W_by_hand  : the within sum of squares of R's final partition about its own
#                cluster means (what kernel k-groups' W is at alpha = 2: for the
#                semimetric |x - y|^2, W = sum_j (1 / (2 n_j)) sum_{x, y in C_j}
#                |x - y|^2 is that sum of squares); at R's convergence it equals
#                criterion * nin
#   empty      : whether a cluster of the first step is empty (R then moves a mean
#                onto the first trimmed point, which kgroups does not copy)

suppressMessages(library(trimcluster))

args <- commandArgs(trailingOnly = TRUE)
if (length(args) >= 1) {
  out_path <- args[1]
} else {
  file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
  here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "."
  out_path <- file.path(here, "trimkmeans_reference.json")
}

# ---- minimal JSON writer (jsonlite may be absent) ----------------------------
num <- function(x) sprintf("%.17g", x)
jvec <- function(x) paste0("[", paste(num(x), collapse = ", "), "]")
jint <- function(x) paste0("[", paste(sprintf("%d", as.integer(x)), collapse = ", "), "]")
jmat <- function(m) paste0("[", paste(apply(m, 1, jvec), collapse = ",\n        "), "]")
jstr <- function(s) paste0("\"", s, "\"")
jbool <- function(b) if (b) "true" else "false"
jobj <- function(fields, sep = ", ") {
  paste0("{", paste(paste0(jstr(names(fields)), ": ", unlist(fields)), collapse = sep), "}")
}

# ---- data ---------------------------------------------------------------------
set.seed(20250321)
blobs <- function(centres, n_each, sd) {
  do.call(rbind, lapply(seq_len(nrow(centres)), function(i)
    sweep(matrix(rnorm(n_each * ncol(centres), sd = sd), n_each), 2, centres[i, ], "+")))
}
datasets <- list(
  # three well-separated blobs and 6 far strays: 66 points, trim 0.1 sets aside 6
  separated = list(
    x = rbind(blobs(rbind(c(0, 0), c(10, 0), c(5, 9)), 20, 1),
              matrix(runif(12, -40, 40), 6) + c(45, -45, 45, -45, 45, -45)),
    k = 3, trim = 0.1),
  # two overlapping blobs with uniform background: 60 points, trim 0.2 sets aside 12
  overlapping = list(
    x = rbind(blobs(rbind(c(0, 0), c(3, 1)), 25, 1.2), matrix(runif(20, -6, 9), 10)),
    k = 2, trim = 0.2),
  # four blobs in 3-D and 4 strays: 84 points, trim 0.05 sets aside 4
  three_d = list(
    x = rbind(blobs(rbind(c(0, 0, 0), c(6, 0, 0), c(0, 6, 0), c(0, 0, 6)), 20, 1.5),
              matrix(runif(12, 15, 25), 4)),
    k = 4, trim = 0.05)
)
n_starts <- 5

first_step <- function(x, centres, nin) {
  n <- nrow(x)
  k <- nrow(centres)
  cls <- integer(n)
  dist <- numeric(n)
  for (j in 1:n) {
    dj <- sapply(1:k, function(l) sum((x[j, ] - centres[l, ])^2))
    cls[j] <- which.min(dj)
    dist[j] <- min(dj)
  }
  cls[order(dist)[(nin + 1):n]] <- k + 1
  cls
}

within_ss <- function(x, cls, k) {
  total <- 0
  for (l in 1:k) {
    xi <- x[cls == l, , drop = FALSE]
    if (nrow(xi)) total <- total + sum(sweep(xi, 2, colMeans(xi))^2)
  }
  total
}

rows <- c()
set.seed(7)
for (name in names(datasets)) {
  d <- datasets[[name]]
  x <- d$x
  n <- nrow(x)
  nin <- ceiling((1 - d$trim) * n)
  starts <- c()
  for (r in 1:n_starts) {
    idx <- sample(n, d$k)
    centres <- x[idx, , drop = FALSE]
    first <- first_step(x, centres, nin)
    fit <- trimkmeans(x, d$k, trim = d$trim, runs = 1, points = centres)
    starts <- c(starts, jobj(list(
      centre_rows = jint(idx - 1),
      first = jint(first),
      empty = jbool(any(tabulate(first, d$k + 1)[1:d$k] == 0)),
      classification = jint(fit$classification),
      criterion = num(fit$criterion),
      W_by_hand = num(within_ss(x, fit$classification, d$k)))))
  }
  rows <- c(rows, paste0(
    "{", jstr("name"), ": ", jstr(name), ", ", jstr("k"), ": ", d$k, ", ",
    jstr("trim"), ": ", num(d$trim), ", ", jstr("nin"), ": ", nin, ",\n      ",
    jstr("x"), ": ", jmat(x), ",\n      ",
    jstr("starts"), ": [\n        ", paste(starts, collapse = ",\n        "), "]}"))
}

meta <- jobj(list(
  R_version = jstr(paste(R.version$major, R.version$minor, sep = ".")),
  trimcluster_version = jstr(format(packageVersion("trimcluster"))),
  generator = jstr("tests/reference/trimkmeans_reference.R"),
  call = jstr("trimkmeans(x, k, trim, runs = 1, points = x[centre_rows + 1, ])")))
json <- paste0("{\n  \"meta\": ", meta, ",\n  \"cases\": [\n    ",
               paste(rows, collapse = ",\n    "), "\n  ]\n}\n")
writeLines(json, out_path, sep = "")
cat("wrote", out_path, "\n")
