# Reference DISCO decompositions from R's energy::disco for tests/test_disco.py.
#
# Usage (from the repository root):
#     Rscript tests/reference/disco_reference.R [output.json]
# Default output: disco_reference.json next to this script.
#
# energy::disco(x, factors, index, R) with one factor: total = sum(D^index) / (2 N),
# within = sum_j (1 / (2 n_j)) sum_{x, y in C_j} D^index, between = total - within,
# F = (between / (k - 1)) / (within / (N - k)), Df.trt = k - 1, Df.e = N - k.
# R = 0 replicates: the statistic and decomposition only (R's p-value depends on
# R's RNG and counts only strictly larger replicates; see kgroups.disco).
#
# Each case stores its data (17 significant digits) and labels, so Python never
# needs R's random number generator. Cases: the bundled iris by species (index 1
# and 0.5), wine (z-scored) by cultivar, two seeded Gaussian samples with 3 and 4
# groups of unequal sizes (index 1 and 1.5), and one with no group difference.

suppressMessages(library(energy))

args <- commandArgs(trailingOnly = TRUE)
file_arg <- grep("^--file=", commandArgs(trailingOnly = FALSE), value = TRUE)
here <- if (length(file_arg)) dirname(sub("^--file=", "", file_arg[1])) else "."
out_path <- if (length(args) >= 1) args[1] else file.path(here, "disco_reference.json")
data_dir <- file.path(here, "..", "..", "src", "kgroups", "datasets", "data")

num <- function(x) sprintf("%.17g", x)
jvec <- function(x) paste0("[", paste(num(x), collapse = ", "), "]")
jint <- function(x) paste0("[", paste(sprintf("%d", as.integer(x)), collapse = ", "), "]")
jmat <- function(m) paste0("[", paste(apply(m, 1, jvec), collapse = ",\n      "), "]")
jstr <- function(s) paste0("\"", s, "\"")

iris_df <- read.csv(file.path(data_dir, "iris.data"), header = FALSE)
iris_x <- as.matrix(iris_df[, 1:4]); dimnames(iris_x) <- NULL
iris_y <- as.integer(factor(iris_df[, 5]))
wine_df <- read.csv(file.path(data_dir, "wine.data"), header = FALSE)
wine_x <- scale(as.matrix(wine_df[, -1])); dimnames(wine_x) <- NULL
attr(wine_x, "scaled:center") <- NULL; attr(wine_x, "scaled:scale") <- NULL
wine_y <- as.integer(wine_df[, 1])

set.seed(20240614)
g1_y <- rep(1:3, c(12, 20, 8))
g1_x <- matrix(rnorm(40 * 2), 40, 2) + cbind(c(0, 1, 2)[g1_y], 0)
g2_y <- rep(1:4, c(10, 15, 5, 20))
g2_x <- matrix(rnorm(50 * 3), 50, 3) * c(1, 1.5, 0.5, 2)[g2_y]
g3_y <- rep(1:2, c(17, 13))
g3_x <- matrix(rnorm(30 * 4), 30, 4)

cases <- list(
  list(name = "iris_species", x = iris_x, y = iris_y, index = 1),
  list(name = "iris_species_index_half", x = iris_x, y = iris_y, index = 0.5),
  list(name = "wine_scaled_cultivar", x = wine_x, y = wine_y, index = 1),
  list(name = "gauss_location_3groups", x = g1_x, y = g1_y, index = 1),
  list(name = "gauss_scale_4groups_index_1.5", x = g2_x, y = g2_y, index = 1.5),
  list(name = "null_2groups", x = g3_x, y = g3_y, index = 1)
)

rows <- c()
for (cs in cases) {
  d <- disco(cs$x, factors = cs$y, index = cs$index, R = 0)
  rows <- c(rows, paste0(
    "    {", jstr("name"), ": ", jstr(cs$name), ", ", jstr("index"), ": ", num(cs$index), ",\n     ",
    jstr("total"), ": ", num(d$total), ", ", jstr("between"), ": ", num(d$between), ", ",
    jstr("within"), ": ", num(d$within), ",\n     ",
    jstr("statistic"), ": ", num(d$statistic), ", ", jstr("df_between"), ": ", num(d$Df.trt),
    ", ", jstr("df_within"), ": ", num(d$Df.e), ",\n     ",
    jstr("labels"), ": ", jint(cs$y), ",\n     ", jstr("X"), ": ", jmat(cs$x), "}"))
}
meta <- paste0("{", jstr("R_version"), ": ", jstr(paste(R.version$major, R.version$minor, sep = ".")),
               ", ", jstr("energy_version"), ": ", jstr(format(packageVersion("energy"))),
               ", ", jstr("generator"), ": ", jstr("tests/reference/disco_reference.R"), "}")
json <- paste0("{\n  \"meta\": ", meta, ",\n  \"cases\": [\n",
               paste(rows, collapse = ",\n"), "\n  ]\n}\n")
writeLines(json, out_path, sep = "")
cat("wrote", out_path, "\n")
