locals {
  auth_project = coalesce(var.auth_project, var.project_id)
  demo         = var.environment == "demo"

  # One service and one service account per function (functions.tf.json).
  public_functions = [for f in local.functions : f if !contains(local.operator_functions, f)]
  fn = { for f in local.functions : f => {
    service = lower(f)
    # account_id takes 6 to 30 characters: a short name (Me) gets "-api".
    account = length(f) < 3 ? "fn-${lower(f)}-api" : "fn-${lower(f)}"
    public  = !contains(local.operator_functions, f)
    # Operators' functions are rare, human-paced calls: one instance. The
    # teachers' deck-authoring functions are human-paced too (a teacher
    # edits a deck now and then, not per review): authoring_max_instances.
    max_instances = contains(local.operator_functions, f) ? 1 : contains(local.authoring_functions, f) ? var.authoring_max_instances : var.function_max_instances
  } }

  # The jobs that talk to the database; seed only in a demo environment.
  # outboxctl is the operators' tool, executed by hand (jobs.tf).
  db_jobs = concat(["drain", "prune", "fit", "migrate", "outboxctl"], local.demo ? ["seed"] : [])

  # Cloud Scheduler starts drain every minute; each execution runs
  # drain_run_seconds in loop mode and must end within the task timeout
  # (run bound + the handler timeout for deliveries in flight + shutdown
  # grace + start-up).
  drain_schedule                = "* * * * *"
  drain_period_seconds          = 60
  drain_handler_timeout_seconds = 30
  drain_shutdown_grace_seconds  = 10
  drain_task_timeout_seconds    = 120

  # Connections per process (DATABASE_MAX_CONNS).
  conns = {
    function  = 2
    drain     = 10
    prune     = 2
    fit       = 2
    migrate   = 2
    seed      = 2
    outboxctl = 2
  }
  # A drain task opens, besides its DATABASE_MAX_CONNS pool, a pool of 2
  # for its own statements (ownConns in pkg/outbox/run.go) and 1 LISTEN
  # connection (pkg/outbox/listen.go).
  drain_task_conns = local.conns.drain + 2 + 1
  # The connection budget: connections per instance × maximum instances of
  # every service, and per task × tasks of every job. Drain executions may
  # overlap (one ending while the next starts), so count two.
  #
  # A service runs two revisions at once during a rollout: the serving one
  # (capped by the service-level scaling, services.tf) and the candidate,
  # tagged with no traffic, which the service-level cap does not count
  # (Cloud Run counts a tagged revision only when it is in the traffic
  # split), so only its revision-level cap bounds it; after traffic moves,
  # the old revision's instances run on until idle. So count two revisions.
  revisions_per_service = 2
  connection_budget = {
    functions = sum([for f in local.functions : local.revisions_per_service * local.fn[f].max_instances * local.conns.function])
    drain     = 2 * var.drain_tasks * local.drain_task_conns
    prune     = local.conns.prune
    fit       = 2 * var.fit_tasks * local.conns.fit # executions may overlap
    migrate   = local.conns.migrate
    outboxctl = local.conns.outboxctl
    seed      = local.demo ? local.conns.seed : 0
  }
  connections_needed = sum(values(local.connection_budget))

  # Environment every database workload shares.
  database_env = {
    DATABASE_INSTANCE       = google_sql_database_instance.main.connection_name
    DATABASE_CLIENT_METRICS = "true"
  }
}

# Fails the plan when the workloads could open more connections than the
# instance accepts (see "Connection budget" in README.md).
resource "terraform_data" "connection_budget" {
  input = local.connections_needed
  lifecycle {
    precondition {
      condition     = local.connections_needed <= var.sql_max_connections - var.sql_operator_connections
      error_message = "The workloads may open ${local.connections_needed} connections; max_connections ${var.sql_max_connections} minus ${var.sql_operator_connections} for operators leaves ${var.sql_max_connections - var.sql_operator_connections}. Lower function_max_instances or drain_tasks, or raise sql_max_connections (and the tier)."
    }
  }
}

# Fails the plan when a drain execution's run bound does not fit its
# schedule: it must end before the scheduler starts the next execution
# (period) and, with the handlers' timeout for deliveries in flight and the
# shutdown grace, within the task timeout.
resource "terraform_data" "drain_bound" {
  input = var.drain_run_seconds
  lifecycle {
    precondition {
      condition     = var.drain_run_seconds < local.drain_period_seconds && var.drain_run_seconds + local.drain_handler_timeout_seconds + local.drain_shutdown_grace_seconds < local.drain_task_timeout_seconds
      error_message = "drain_run_seconds (${var.drain_run_seconds}) must be below the schedule's period (${local.drain_period_seconds} s), and with the handlers' timeout (${local.drain_handler_timeout_seconds} s) and the shutdown grace (${local.drain_shutdown_grace_seconds} s) below the task timeout (${local.drain_task_timeout_seconds} s)."
    }
  }
}
