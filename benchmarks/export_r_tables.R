# Write the labelled R tables of the "uci" battery (benchmarks/_uci_tables.py) as CSV
# files: the feature columns, then a column "label"; missing values as NA (the
# Python loader drops those rows and says how many). Logical columns and factors of
# two levels become 0/1 (first level 0), ordered factors their integer codes, factors
# whose levels are numbers those numbers; a table with another factor among its
# features stops the script.
# Run by benchmarks/setup_uci_r.sh:  Rscript benchmarks/export_r_tables.R OUTDIR
# Packages: mlbench (Leisch & Dimitriadou), mclust (Scrucca et al.), rrcov (Todorov),
# MASS (Venables & Ripley), HSAUR3 (Hothorn & Everitt), factoextra (Kassambara & Mundt),
# kernlab (Karatzoglou et al.), gclus (Hurley), carData (Fox & Weisberg), caret (Kuhn),
# boot (Canty & Ripley).

args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args)) args[1] else file.path("benchmarks", ".data", "r")
dir.create(out, recursive = TRUE, showWarnings = FALSE)

# file name, package, data set, label column, feature columns dropped (comma-separated)
tables <- list(
  c("PimaIndiansDiabetes", "mlbench", "PimaIndiansDiabetes", "diabetes", ""),
  c("Sonar", "mlbench", "Sonar", "Class", ""),
  c("Vehicle", "mlbench", "Vehicle", "Class", ""),
  c("Vowel", "mlbench", "Vowel", "Class", "V1"),           # V1: the speaker
  c("Zoo", "mlbench", "Zoo", "type", ""),
  c("Satellite", "mlbench", "Satellite", "classes", ""),
  c("HouseVotes84", "mlbench", "HouseVotes84", "Class", ""),
  c("Shuttle", "mlbench", "Shuttle", "Class", ""),
  c("DNA", "mlbench", "DNA", "Class", ""),
  c("banknote", "mclust", "banknote", "Status", ""),
  c("thyroid", "mclust", "thyroid", "Diagnosis", ""),
  c("cross", "mclust", "cross", "group", ""),
  c("fish", "rrcov", "fish", "Species", ""),
  c("olitos", "rrcov", "olitos", "grp", ""),
  c("salmon", "rrcov", "salmon", "Origin", "Gender"),   # the fish's sex, not a ring
  c("cats", "MASS", "cats", "Sex", ""),
  c("pottery", "HSAUR3", "pottery", "kiln", ""),
  c("multishapes", "factoextra", "multishapes", "shape", ""),
  # the "ztables" battery (benchmarks/_ztables.py): real tables z-scored
  c("spam", "kernlab", "spam", "type", ""),
  c("musk", "kernlab", "musk", "Class", ""),
  c("body", "gclus", "body", "Gender", ""),
  c("BreastCancer", "mlbench", "BreastCancer", "Class", "Id"),
  # widened for the choice of k (issue 55): real tables of the installed R packages
  c("hemophilia", "rrcov", "hemophilia", "gr", ""),
  c("fruit", "rrcov", "fruit", "cultivar", ""),
  c("pottery_origin", "rrcov", "pottery", "origin", ""),
  c("painters", "MASS", "painters", "School", ""),
  c("Cars93", "MASS", "Cars93", "Type",
    "Manufacturer,Model,AirBags,DriveTrain,Cylinders,Man.trans.avail,Origin,Make"),
  c("Salaries", "carData", "Salaries", "rank", ""),
  c("Prestige", "carData", "Prestige", "type", "census"),   # census: an occupation code
  c("Davis", "carData", "Davis", "sex", ""),
  c("dhfr", "caret", "dhfr", "Y", ""),
  c("scat", "caret", "scat", "Species", "Month,Site,Location"),
  c("GermanCredit", "caret", "GermanCredit", "Class", ""),
  c("LetterRecognition", "mlbench", "LetterRecognition", "lettr", ""),
  c("household", "HSAUR3", "household", "gender", ""),
  c("urine", "boot", "urine", "r", "")
)

as_number <- function(v, name) {
  if (is.logical(v)) return(as.integer(v))
  if (is.ordered(v)) return(as.integer(v))
  if (is.factor(v) && !anyNA(suppressWarnings(as.numeric(levels(v)))))
    return(as.numeric(as.character(v)))  # a factor of numbers (mlbench BreastCancer)
  if (is.factor(v)) {
    if (nlevels(v) != 2) stop(name, ": a factor of ", nlevels(v), " levels")
    return(as.integer(v) - 1L)
  }
  if (!is.numeric(v)) stop(name, ": a column of class ", class(v)[1])
  v
}

written <- character(0)
for (t in tables) {
  env <- new.env()
  data(list = t[3], package = t[2], envir = env)
  df <- as.data.frame(get(t[3], envir = env))
  drop <- c(t[4], if (nzchar(t[5])) strsplit(t[5], ",")[[1]])
  feats <- setdiff(names(df), drop)
  X <- as.data.frame(lapply(feats, function(f) as_number(df[[f]], paste(t[1], f))))
  names(X) <- feats
  X$label <- as.character(df[[t[4]]])
  path <- file.path(out, paste0(t[1], ".csv"))
  write.csv(X, path, row.names = FALSE, na = "NA")
  cat(sprintf("export_r_tables: %-20s %5d rows %4d features, label %s (%s::%s)\n",
              basename(path), nrow(X), length(feats), t[4], t[2], t[3]))
  written <- c(written, basename(path))
}
# written last: the setup script takes the tables as complete when this index is there
writeLines(written, file.path(out, "index.txt"))
cat("export_r_tables:", length(written), "tables in", out, "\n")
