# bench/plot.gp - cost per call of each configuration of the calls workload.
# Called by bench/report.sh with datafile, outfile and calls set on the command line.
# Columns of datafile: index, "config", min, median, max, label text, label height.
set terminal pngcairo size 900,500 font ",10"
set output outfile
set title sprintf("Cost per call to a small function (%s calls per run; median, min-max bars)", calls)
set ylabel "ns per call (log scale)"
set logscale y
set yrange [0.5:*]
set xrange [-0.6:*]
set grid ytics
set style fill solid 0.5
set boxwidth 0.6
set xtics rotate by -25
set key off
plot datafile using 1:4:xtic(2) with boxes lc rgb "#4a7ab5", \
     '' using 1:4:3:5 with yerrorbars lc rgb "black" pt 0, \
     '' using 1:7:6 with labels offset 0,1
