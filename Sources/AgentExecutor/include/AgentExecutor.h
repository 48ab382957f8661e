#ifndef OPENDEFAULTS_AGENT_EXECUTOR_H
#define OPENDEFAULTS_AGENT_EXECUTOR_H

#include <stdbool.h>

/// True when this process's Swift tasks run on the agent's own executor: threads that sleep
/// until there is work, and the main queue drained on the main thread. It is put in
/// place as the process loads, before Swift's async main starts, for `ubiquity agent` (unless
/// OPENDEFAULTS_AGENT_EXECUTOR=dispatch); every other command keeps Swift's default executor.
/// See proposal 0020.
bool opendefaults_agent_executor_installed(void);

#endif
