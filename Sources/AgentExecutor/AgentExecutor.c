// The agent's executor (proposal 0020): Swift concurrency's global jobs run on threads of this
// file instead of libdispatch's worker pool, and the main queue is drained on the main thread,
// so that an idle agent sleeps.
//
// Why: on Linux, Swift's default executor is libdispatch, whose worker pool arms a 1 s timer (its
// "workqueue monitor", swift-corelibs-libdispatch src/event/workqueue.c) the first time one of
// its worker threads starts, and keeps it for the life of the process: every async Swift process
// wakes once a second whatever it does. Issue 41 asks an idle agent for at most one wake-up a
// minute. The runtime's executor hooks (swift/Runtime/ConcurrencyHooks.def) are how a process
// replaces the executors; swift-nio sets the first of them the same way. They must be set
// before the async main starts, which enqueues the main task and drains the main queue through
// dispatch_main(): hence a constructor, run as the executable loads.
//
// What runs where:
// - global jobs (tasks, default actors): a FIFO served by one thread per processor, each asleep
//   on a condition variable while the FIFO is empty (no timeout);
// - main-actor jobs: libdispatch's main queue, drained on the main thread as CoreFoundation's run
//   loop drains it (its eventfd, then _dispatch_main_queue_callback_4CF), in the async main's
//   drain, which never returns (the async main ends the process with exit()). Swift 6.3 sends
//   main-actor jobs to that queue from Swift as well as through the runtime's hook, so the queue
//   itself is what must be drained; a main queue drained so starts no worker thread.
// Priorities are not kept (the agent's tasks all have the default one). Timed jobs are not taken
// over: Swift 6.3's Task.sleep goes to libdispatch's timers from Swift, past the runtime's delay
// and deadline hooks, so the agent does not sleep that way (HTTPUbiquityTransport.pause).

#include "AgentExecutor.h"

#include <poll.h>
#include <pthread.h>
#include <sys/eventfd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SWIFTCALL __attribute__((swiftcall))

typedef struct Job Job;
typedef struct {
    const void *identity;
    uintptr_t implementation;
} SerialExecutorRef;

typedef SWIFTCALL void (*EnqueueGlobalOriginal)(Job *job);
typedef SWIFTCALL void (*AsyncMainDrainQueueOriginal)(void);
typedef SWIFTCALL void (*AsyncMainDrainQueueOverride)(AsyncMainDrainQueueOriginal original);

extern SWIFTCALL void (*swift_task_enqueueGlobal_hook)(Job *job, EnqueueGlobalOriginal original);
extern SWIFTCALL void (*swift_task_asyncMainDrainQueue_hook)(AsyncMainDrainQueueOriginal original, AsyncMainDrainQueueOverride compatOverride);

extern SWIFTCALL void swift_job_run(Job *job, SerialExecutorRef executor);

// libdispatch's main queue as CoreFoundation drives it on Linux: an eventfd that becomes readable
// when the queue has work, and the call that runs that work on the calling (main) thread.
extern int _dispatch_get_main_queue_handle_4CF(void);
extern void _dispatch_main_queue_callback_4CF(void *message);

/// A job waiting in the queue.
typedef struct Entry {
    Job *job;
    struct Entry *next;
} Entry;

/// A FIFO of jobs and the condition its threads sleep on.
typedef struct {
    pthread_mutex_t lock;
    pthread_cond_t ready;
    Entry *head;
    Entry *tail;
} Queue;

static Queue global_queue = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, NULL, NULL};

static bool installed = false;

bool opendefaults_agent_executor_installed(void) { return installed; }

static void push(Queue *q, Job *job) {
    Entry *e = malloc(sizeof(Entry));
    if (e == NULL) abort(); // as Swift's runtime does when it cannot allocate
    e->job = job;
    e->next = NULL;
    pthread_mutex_lock(&q->lock);
    if (q->tail) q->tail->next = e; else q->head = e;
    q->tail = e;
    pthread_cond_signal(&q->ready);
    pthread_mutex_unlock(&q->lock);
}

/// The next job of `q`, waiting (without a timeout) while there is none.
static Job *pop(Queue *q) {
    pthread_mutex_lock(&q->lock);
    while (q->head == NULL) pthread_cond_wait(&q->ready, &q->lock);
    Entry *e = q->head;
    q->head = e->next;
    if (q->head == NULL) q->tail = NULL;
    pthread_mutex_unlock(&q->lock);
    Job *job = e->job;
    free(e);
    return job;
}

static void *global_worker(void *unused) {
    (void)unused;
    SerialExecutorRef generic = {NULL, 0};
    for (;;) swift_job_run(pop(&global_queue), generic);
    return NULL;
}

static SWIFTCALL void enqueue_global(Job *job, EnqueueGlobalOriginal original) {
    (void)original;
    push(&global_queue, job);
}

static SWIFTCALL void drain_main(AsyncMainDrainQueueOriginal original, AsyncMainDrainQueueOverride compatOverride) {
    (void)original; (void)compatOverride;
    struct pollfd main_queue = {_dispatch_get_main_queue_handle_4CF(), POLLIN, 0};
    for (;;) {
        if (poll(&main_queue, 1, -1) < 0) continue; // EINTR
        if (main_queue.revents & POLLIN) {
            eventfd_t count;
            (void)eventfd_read(main_queue.fd, &count);
            _dispatch_main_queue_callback_4CF(NULL);
        }
    }
}

static void start(void *(*body)(void *)) {
    pthread_t thread;
    pthread_attr_t attributes;
    pthread_attr_init(&attributes);
    pthread_attr_setdetachstate(&attributes, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&thread, &attributes, body, NULL) != 0) abort();
    pthread_attr_destroy(&attributes);
}

/// Puts the executor in place for `ubiquity agent`, as the executable loads (glibc passes a
/// constructor the program's arguments).
__attribute__((constructor)) static void install(int argc, char **argv, char **envp) {
    (void)envp;
    if (argc < 2 || strcmp(argv[1], "agent") != 0) return;
    const char *choice = getenv("OPENDEFAULTS_AGENT_EXECUTOR");
    if (choice != NULL && strcmp(choice, "dispatch") == 0) return;

    long processors = sysconf(_SC_NPROCESSORS_ONLN);
    if (processors < 2) processors = 2; // a blocking job must not stop every other
    for (long i = 0; i < processors; i++) start(global_worker);

    swift_task_enqueueGlobal_hook = enqueue_global;
    swift_task_asyncMainDrainQueue_hook = drain_main;
    installed = true;
}
