/* The outputs of a command's results (core/sb_cmd_results.h): --results,
   --save and the live --metrics-listen page for a command that is not the
   engine's run (`bmk tpch run`). */
#ifndef SB_CMD_OUTPUTS_H
#define SB_CMD_OUTPUTS_H

/* Installs them (sb_cmd_results_install). Main thread, at start. */
void sb_cli_install_cmd_outputs(void);

#endif
