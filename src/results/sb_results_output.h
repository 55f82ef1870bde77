/* The result files as an output of the engine (core/sb_output.h). */
#ifndef SB_RESULTS_OUTPUT_H
#define SB_RESULTS_OUTPUT_H

#include "core/sb_output.h"

/* Fills `out` with the output that writes the --results JSON file
   (`json_path`) and the --hdr-log file (`hdrlog_path`); either may be
   NULL, not both. Its open checks that both can be written (FATAL naming
   the file otherwise), its end writes the JSON document and closes the
   log. The paths must stay valid for the run. Main thread; one such
   output per process. */
void sb_results_output(const char *json_path, const char *hdrlog_path, sb_output_t *out);

#endif
