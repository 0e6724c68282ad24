# Reference merges and heights from R's energy::energy.hclust for tests/test_hierarchical.py.
#
# Usage (from the repository root):
#     Rscript tests/reference/energy_hclust_reference.R [output.json]
# Default output: energy_hclust_reference.json next to this script.
#
# energy::energy.hclust(dst, alpha) is hclust(dst^alpha, method = "ward.D"): the
# Lance-Williams recursion of Ward's method applied to the e-distances, whose value
# between two singletons is rho(x, y) = |x - y|^alpha. hclust's `members` argument
# (initial cluster sizes) gives the weighted version, with weights in place of sizes;
# energy.hclust has no such argument, so the weighted case calls hclust directly, with
# the e-distance of two weighted singletons, 2 w_i w_j / (w_i + w_j) rho(x_i, x_j), as
# the starting dissimilarity (hclust takes `d` as the criterion between the initial
# clusters; with unit weights this is rho itself).
#
# Each case stores the data actually clustered (17 significant digits: an exact round
# trip of doubles) so that Python never needs R's random number generator, and R's
# merge matrix (negative = singleton -i, 1-based; positive = the cluster formed at
# step j) and heights. Distances are R's dist() (Euclidean unless stated: "manhattan"
# gives a precomputed semimetric case).
#
# Cases: the bundled UCI iris (150 x 4, with its ties and one duplicated row) and wine
# (178 x 13, z-scored with scale()), seeded Gaussian mixtures in 2, 3 and 5
# dimensions with alpha = 1, 0.5 and 2, a weighted case (members), and a Manhattan
# (precomputed) case.

suppressMessages(library(energy))

args <- commandArgs(trailingOnly = TRUE)
file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "."
out_path <- if (length(args) >= 1) args[1] else file.path(here, "energy_hclust_reference.json")
data_dir <- file.path(here, "..", "..", "src", "kgroups", "datasets", "data")

num <- function(x) sprintf("%.17g", x)
jvec <- function(x) paste0("[", paste(num(x), collapse = ", "), "]")
jint <- function(x) paste0("[", paste(sprintf("%d", as.integer(x)), collapse = ", "), "]")
jmat <- function(m) paste0("[", paste(apply(m, 1, jvec), collapse = ",\n      "), "]")
jimat <- function(m) paste0("[", paste(apply(m, 1, jint), collapse = ", "), "]")
jstr <- function(s) paste0("\"", s, "\"")

iris_x <- as.matrix(read.csv(file.path(data_dir, "iris.data"), header = FALSE)[, 1:4])
wine_x <- scale(as.matrix(read.csv(file.path(data_dir, "wine.data"), header = FALSE)[, -1]))
dimnames(iris_x) <- NULL
dimnames(wine_x) <- NULL
attr(wine_x, "scaled:center") <- NULL
attr(wine_x, "scaled:scale") <- NULL

set.seed(20240613)
mix <- function(n, d, centres) {
  lab <- sample(seq_len(nrow(centres)), n, replace = TRUE)
  centres[lab, , drop = FALSE] + matrix(rnorm(n * d), n, d)
}
g3 <- mix(60, 3, rbind(c(0, 0, 0), c(4, 0, 0), c(0, 4, 1)))
g2 <- mix(40, 2, rbind(c(0, 0), c(3, 3)))
g5 <- mix(50, 5, rbind(rep(0, 5), rep(2, 5), c(3, -3, 0, 0, 1)))
gw <- mix(30, 2, rbind(c(0, 0), c(5, 1), c(1, 5)))
wts <- round(runif(30, 0.5, 4), 3)
gm <- mix(45, 4, rbind(rep(0, 4), c(3, 3, 0, 0)))

cases <- list(
  list(name = "iris", x = iris_x, alpha = 1, method = "euclidean", w = NULL),
  list(name = "wine_scaled", x = wine_x, alpha = 1, method = "euclidean", w = NULL),
  list(name = "gauss3d", x = g3, alpha = 1, method = "euclidean", w = NULL),
  list(name = "gauss2d_alpha_half", x = g2, alpha = 0.5, method = "euclidean", w = NULL),
  list(name = "gauss5d_alpha_2", x = g5, alpha = 2, method = "euclidean", w = NULL),
  list(name = "weighted_gauss2d", x = gw, alpha = 1, method = "euclidean", w = wts),
  list(name = "manhattan_precomputed", x = gm, alpha = 1, method = "manhattan", w = NULL)
)

rows <- c()
for (cs in cases) {
  d <- dist(cs$x, method = cs$method)
  if (is.null(cs$w)) {
    h <- energy.hclust(d, alpha = cs$alpha)
    wjson <- "null"
  } else {
    w <- cs$w
    e0 <- as.dist(as.matrix(d^cs$alpha) * 2 * outer(w, w) / outer(w, w, "+"))
    h <- hclust(e0, method = "ward.D", members = w)
    wjson <- jvec(cs$w)
  }
  rows <- c(rows, paste0(
    "    {", jstr("name"), ": ", jstr(cs$name), ", ",
    jstr("alpha"), ": ", num(cs$alpha), ", ",
    jstr("distance"), ": ", jstr(cs$method), ",\n     ",
    jstr("sample_weight"), ": ", wjson, ",\n     ",
    jstr("merge"), ": ", jimat(h$merge), ",\n     ",
    jstr("height"), ": ", jvec(h$height), ",\n     ",
    jstr("X"), ": ", jmat(cs$x), "}"))
}

meta <- paste0("{", jstr("R_version"), ": ", jstr(paste(R.version$major, R.version$minor, sep = ".")),
               ", ", jstr("energy_version"), ": ", jstr(format(packageVersion("energy"))),
               ", ", jstr("generator"), ": ", jstr("tests/reference/energy_hclust_reference.R"), "}")
json <- paste0("{\n  \"meta\": ", meta, ",\n  \"cases\": [\n",
               paste(rows, collapse = ",\n"), "\n  ]\n}\n")
writeLines(json, out_path, sep = "")
cat("wrote", out_path, "\n")
