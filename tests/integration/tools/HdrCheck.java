// Reference check of bmk's HdrHistogram output with the HdrHistogram Java
// library (Debian libhdrhistogram-java). Usage:
//   java -cp HdrHistogram.jar HdrCheck.java log FILE [TAG]
//       sums the intervals of FILE (untagged, or those tagged TAG)
//   java -cp HdrHistogram.jar HdrCheck.java b64 STRING
//       decodes one V2 compressed, base64 histogram
// and prints "count N intervals I p50 X p95 X p99 X max X" (latencies in
// ms, 2 decimals, as bmk prints them).
//   java -cp HdrHistogram.jar HdrCheck.java tags FILE
//       prints "TAG count N intervals I" per tag of FILE, in the order
//       the tags first appear ("-" for the untagged lines)
import java.io.File;
import java.nio.ByteBuffer;
import java.util.Base64;
import org.HdrHistogram.EncodableHistogram;
import org.HdrHistogram.Histogram;
import org.HdrHistogram.HistogramLogReader;

public class HdrCheck {
    public static void main(String[] args) throws Exception {
        Histogram sum = new Histogram(1, 3600000000000L, 3);
        int intervals = 0;
        if (args[0].equals("tags")) {
            java.util.LinkedHashMap<String, long[]> tags = new java.util.LinkedHashMap<>();
            HistogramLogReader r = new HistogramLogReader(new File(args[1]));
            EncodableHistogram h;
            while ((h = r.nextIntervalHistogram()) != null) {
                String t = h.getTag() == null ? "-" : h.getTag();
                long[] c = tags.computeIfAbsent(t, k -> new long[2]);
                c[0] += ((Histogram) h).getTotalCount();
                c[1]++;
            }
            for (java.util.Map.Entry<String, long[]> e : tags.entrySet())
                System.out.printf("%s count %d intervals %d%n", e.getKey(), e.getValue()[0],
                                  e.getValue()[1]);
            return;
        }
        if (args[0].equals("log")) {
            String tag = args.length > 2 ? args[2] : null;
            HistogramLogReader r = new HistogramLogReader(new File(args[1]));
            EncodableHistogram h;
            while ((h = r.nextIntervalHistogram()) != null) {
                String t = h.getTag();
                if (tag == null ? t != null : !tag.equals(t))
                    continue;
                sum.add((Histogram) h);
                intervals++;
            }
        } else {
            byte[] raw = Base64.getDecoder().decode(args[1]);
            sum.add(Histogram.decodeFromCompressedByteBuffer(ByteBuffer.wrap(raw), 0));
            intervals = 1;
        }
        System.out.printf(java.util.Locale.ROOT,
            "count %d intervals %d p50 %.2f p95 %.2f p99 %.2f max %.2f%n",
            sum.getTotalCount(), intervals,
            sum.getValueAtPercentile(50) / 1e6, sum.getValueAtPercentile(95) / 1e6,
            sum.getValueAtPercentile(99) / 1e6, sum.getMaxValue() / 1e6);
    }
}
