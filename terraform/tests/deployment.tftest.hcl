# The plan's properties, offline: the Google provider is mocked (no
# credentials, no network), and `command = apply` makes the mock fill in the
# computed values (service account emails, the instance's connection name)
# that the assertions compare.

mock_provider "google" {
  mock_data "google_project" {
    defaults = {
      number = "123456789012"
    }
  }
  # The resource name must look like one (google_service_account_iam_member
  # validates it); the emails stay random, so distinct per account.
  mock_resource "google_service_account" {
    defaults = {
      name = "projects/lexora-test/serviceAccounts/mock-account@lexora-test.iam.gserviceaccount.com"
    }
  }
  mock_resource "google_sql_database_instance" {
    defaults = {
      connection_name = "lexora-test:europe-west1:lexora"
    }
  }
}

variables {
  project_id      = "lexora-test"
  environment     = "prod"
  domain          = "app.lexora.test"
  terraform_admin = "platform@lexora.test"
  operators       = ["group:oncall@lexora.test"]
  smtp = {
    host = "smtp.lexora.test"
    port = 587
    from = "Lexora <no-reply@lexora.test>"
  }
}

run "functions" {
  command = apply

  assert {
    condition     = length(google_cloud_run_v2_service.function) == length(local.functions) && length(google_service_account.function) == length(local.functions)
    error_message = "every function has a Cloud Run service and a service account"
  }
  assert {
    condition = alltrue([for f in local.functions :
      google_cloud_run_v2_service.function[f].template[0].service_account == google_service_account.function[f].email
    ])
    error_message = "each function's service runs as that function's own service account"
  }
  assert {
    condition     = length(distinct([for sa in google_service_account.function : sa.email])) == length(local.functions)
    error_message = "no two functions share a service account"
  }
  assert {
    condition = alltrue([for f in local.functions :
      [for e in google_cloud_run_v2_service.function[f].template[0].containers[0].env : e.value if e.name == "FUNCTION_TARGET"] == [f]
    ])
    error_message = "each service selects its own function with FUNCTION_TARGET"
  }
  assert {
    condition = alltrue([for f in local.functions :
      [for e in google_cloud_run_v2_service.function[f].template[0].containers[0].env : e.value if e.name == "DATABASE_INSTANCE"] == ["lexora-test:europe-west1:lexora"]
    ])
    error_message = "each function connects through the connector to the instance"
  }
  assert {
    condition = alltrue([for f in local.functions :
      [for e in google_cloud_run_v2_service.function[f].template[0].containers[0].env : e.value if e.name == "DATABASE_URL"] == ["user=${trimsuffix(google_service_account.function[f].email, ".gserviceaccount.com")} dbname=lexora sslmode=disable"]
    ])
    error_message = "each function logs in as its own IAM database user"
  }
}

run "nothing_operator_only_is_public" {
  command = apply

  assert {
    condition     = length(setintersection(keys(google_cloud_run_v2_service_iam_member.public), local.operator_functions)) == 0
    error_message = "no operator function is open to allUsers"
  }
  assert {
    condition     = toset(keys(google_cloud_run_v2_service_iam_member.public)) == toset(local.public_functions)
    error_message = "every public function (and only those) is open to allUsers, for the load balancer"
  }
  assert {
    condition     = alltrue([for m in google_cloud_run_v2_service_iam_member.public : m.member == "allUsers"]) && alltrue([for m in google_cloud_run_v2_service_iam_member.operator : m.member != "allUsers" && m.member != "allAuthenticatedUsers"])
    error_message = "operator functions are invoked only by the operators"
  }
  assert {
    condition = alltrue([for f in local.operator_functions :
      toset([for m in google_cloud_run_v2_service_iam_member.operator : m.role if m.name == google_cloud_run_v2_service.function[f].name]) == toset(["roles/run.invoker", "roles/run.viewer"])
    ])
    error_message = "operators may invoke each operator function and read its service (for its URL), nothing more"
  }
  assert {
    condition     = contains(google_project_iam_custom_role.job_operator.permissions, "run.jobs.runWithOverrides") && alltrue([for m in google_cloud_run_v2_job_iam_member.operator : m.role == google_project_iam_custom_role.job_operator.name && contains(["drain", "prune"], m.name)])
    error_message = "operators may execute drain and prune with overrides (README's drain by hand), on those jobs only"
  }
  assert {
    condition = alltrue([for f in local.public_functions :
      google_cloud_run_v2_service.function[f].ingress == "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER"
    ])
    error_message = "public functions admit only the load balancer"
  }
  assert {
    condition     = toset(flatten([for pm in google_compute_url_map.https.path_matcher : [for r in pm.path_rule : r.paths]])) == toset([for f in local.public_functions : "/${f}"])
    error_message = "the load balancer routes exactly the public functions, at /<FunctionName>"
  }
  assert {
    condition     = google_storage_bucket.web.public_access_prevention == "enforced" && google_storage_bucket_iam_member.cdn_reads_web.member == "serviceAccount:service-123456789012@cloud-cdn-fill.iam.gserviceaccount.com"
    error_message = "the web bucket is private; only Cloud CDN reads it"
  }
}

run "scheduler" {
  command = apply

  assert {
    condition     = google_cloud_scheduler_job.job["drain"].http_target[0].uri == "https://run.googleapis.com/v2/projects/lexora-test/locations/europe-west1/jobs/drain:run" && google_cloud_scheduler_job.job["drain"].http_target[0].http_method == "POST"
    error_message = "the scheduler starts the drain job through the Run Admin API"
  }
  assert {
    condition     = google_cloud_scheduler_job.job["drain"].http_target[0].oauth_token[0].service_account_email == google_service_account.scheduler.email && length(google_cloud_scheduler_job.job["drain"].http_target[0].oidc_token) == 0
    error_message = "with an OAuth token (not OIDC) of the scheduler's service account"
  }
  assert {
    condition     = google_cloud_scheduler_job.job["drain"].schedule == "* * * * *" && google_cloud_scheduler_job.job["prune"].schedule == "17 * * * *" && google_cloud_scheduler_job.job["prune"].http_target[0].uri == "https://run.googleapis.com/v2/projects/lexora-test/locations/europe-west1/jobs/prune:run"
    error_message = "drain every minute, prune hourly"
  }
  assert {
    condition     = toset([for m in google_cloud_run_v2_job_iam_member.scheduler : m.name]) == toset(["drain", "prune"]) && alltrue([for m in google_cloud_run_v2_job_iam_member.scheduler : m.role == "roles/run.invoker" && m.member == "serviceAccount:${google_service_account.scheduler.email}"])
    error_message = "the scheduler may run the drain and prune jobs"
  }
  assert {
    condition = !contains(flatten([
      [for m in google_project_iam_member.db_client : m.member],
      [for m in google_project_iam_member.db_instance_user : m.member],
      [for m in google_project_iam_member.metric_writer : m.member],
      [for m in google_project_iam_member.build : m.member],
      [for m in google_cloud_run_v2_service_iam_member.operator : m.member],
      [for m in google_cloud_run_v2_job_iam_member.operator : m.member],
      [for m in google_secret_manager_secret_iam_member.accessor : m.member],
    ]), "serviceAccount:${google_service_account.scheduler.email}")
    error_message = "and nothing else"
  }
}

run "drain_bound" {
  command = apply

  assert {
    condition     = tonumber(trimsuffix(one([for e in google_cloud_run_v2_job.job["drain"].template[0].template[0].containers[0].env : e.value if e.name == "DRAIN_MAX_DURATION"]), "s")) < local.drain_period_seconds
    error_message = "a drain execution's run bound is below the schedule's period"
  }
  assert {
    condition     = var.drain_run_seconds + local.drain_handler_timeout_seconds + local.drain_shutdown_grace_seconds < tonumber(trimsuffix(google_cloud_run_v2_job.job["drain"].template[0].template[0].timeout, "s"))
    error_message = "the run bound, the handlers' timeout and the shutdown grace fit in the task timeout"
  }
  assert {
    condition     = [for e in google_cloud_run_v2_job.job["drain"].template[0].template[0].containers[0].env : "${e.name}=${e.value}" if contains(["DRAIN_STOP_WHEN_IDLE", "DRAIN_LISTEN"], e.name)] == ["DRAIN_LISTEN=true", "DRAIN_STOP_WHEN_IDLE=false"]
    error_message = "the drain runs in loop mode with the LISTEN hint"
  }
  assert {
    condition     = one([for e in google_cloud_run_v2_job.job["drain"].template[0].template[0].containers[0].env : e.value if e.name == "DRAIN_MAX_DELIVERIES"]) == "100000"
    error_message = "the per-execution cap DRAIN_MAX_DELIVERIES is set explicitly from var.drain_max_deliveries"
  }
  assert {
    condition     = google_cloud_run_v2_job.job["drain"].template[0].template[0].max_retries == 0 && google_cloud_run_v2_job.job["migrate"].template[0].template[0].max_retries == 0
    error_message = "neither drain (the next minute is its retry) nor migrate (a human looks first) retries a task"
  }
  assert {
    condition     = !contains(keys(google_cloud_run_v2_job.job), "seed") && !contains(keys(google_service_account.job), "seed")
    error_message = "no seed job outside a demo environment"
  }
}

run "secrets" {
  command = apply

  assert {
    condition = alltrue([for s in keys(google_secret_manager_secret.secret) :
      toset([for a in google_secret_manager_secret_iam_member.accessor : a.member if a.secret_id == google_secret_manager_secret.secret[s].id]) == toset(["serviceAccount:${google_service_account.job["drain"].email}"])
    ])
    error_message = "each SMTP secret is readable by the drain's service account and no one else"
  }
  assert {
    condition     = alltrue([for a in google_secret_manager_secret_iam_member.accessor : a.role == "roles/secretmanager.secretAccessor"])
    error_message = "secret access is read-only"
  }
  assert {
    condition     = toset([for e in google_cloud_run_v2_job.job["drain"].template[0].template[0].containers[0].env : e.value_source[0].secret_key_ref[0].secret if length(e.value_source) > 0]) == toset(keys(google_secret_manager_secret.secret)) && alltrue(flatten([for j, job in google_cloud_run_v2_job.job : [for e in job.template[0].template[0].containers[0].env : j == "drain" if length(e.value_source) > 0]]))
    error_message = "the drain reads the SMTP secrets, no other job reads a secret"
  }
  assert {
    condition     = alltrue([for s in google_cloud_run_v2_service.function : alltrue([for e in s.template[0].containers[0].env : length(e.value_source) == 0])])
    error_message = "no function reads a secret"
  }
}

run "cloud_sql" {
  command = apply

  assert {
    condition     = google_sql_database_instance.main.database_version == "POSTGRES_16" && google_sql_database_instance.main.settings[0].edition == "ENTERPRISE"
    error_message = "PostgreSQL 16, edition explicit"
  }
  assert {
    condition     = length(google_sql_database_instance.main.settings[0].ip_configuration[0].authorized_networks) == 0 && google_sql_database_instance.main.settings[0].connector_enforcement == "REQUIRED"
    error_message = "no authorized networks; only the connector may connect"
  }
  assert {
    condition     = google_sql_database_instance.main.settings[0].backup_configuration[0].enabled && google_sql_database_instance.main.settings[0].backup_configuration[0].point_in_time_recovery_enabled
    error_message = "backups with point-in-time recovery"
  }
  assert {
    condition     = google_sql_database_instance.main.deletion_protection && google_sql_database_instance.main.settings[0].deletion_protection_enabled
    error_message = "deletion protection, in Terraform and in the API"
  }
  assert {
    condition     = contains([for f in google_sql_database_instance.main.settings[0].database_flags : "${f.name}=${f.value}"], "cloudsql.iam_authentication=on")
    error_message = "IAM database authentication"
  }
  assert {
    condition     = length(google_sql_user.workload) == length(local.functions) + 3 && alltrue([for u in google_sql_user.workload : u.type == "CLOUD_IAM_SERVICE_ACCOUNT"])
    error_message = "one IAM database user per workload (functions, drain, prune, migrate)"
  }
  assert {
    condition     = strcontains(google_sql_provision_script.roles.script, "ALTER ROLE \"${trimsuffix(google_service_account.job["drain"].email, ".gserviceaccount.com")}\" SET statement_timeout = '30s';") && strcontains(google_sql_provision_script.roles.script, "GRANT lexora_app TO \"${trimsuffix(google_service_account.function["SubmitReview"].email, ".gserviceaccount.com")}\";")
    error_message = "the provision script sets the role settings and the lexora_app memberships"
  }
  assert {
    condition     = !strcontains(google_sql_provision_script.roles.script, "GRANT lexora_app TO \"${trimsuffix(google_service_account.job["migrate"].email, ".gserviceaccount.com")}\"")
    error_message = "the migrate job owns the schema and is not in lexora_app"
  }
  assert {
    condition     = alltrue([for j in ["migrate", "prune"] : strcontains(google_sql_provision_script.roles.script, "GRANT lexora_outbox_owner TO \"${trimsuffix(google_service_account.job[j].email, ".gserviceaccount.com")}\";")]) && !strcontains(google_sql_provision_script.roles.script, "GRANT lexora_outbox_owner TO \"${trimsuffix(google_service_account.job["drain"].email, ".gserviceaccount.com")}\"")
    error_message = "the migrate and prune jobs, and no other workload, are in lexora_outbox_owner: prune may VACUUM the outbox tables the migrate job gives it"
  }
  assert {
    condition     = output.connection_budget.total <= var.sql_max_connections - var.sql_operator_connections
    error_message = "the workloads' connections fit under max_connections"
  }
  assert {
    condition     = output.connection_budget.drain == 2 * 2 * (10 + 2 + 1)
    error_message = "each drain task counts its pool (10), its own statements' pool (2) and its LISTEN connection, for 2 tasks of 2 overlapping executions"
  }
}

# A run bound at or above the schedule's period, or one that with the
# handlers' timeout and the grace overruns the task timeout, fails the plan.
run "drain_bound_at_the_period" {
  command = plan
  variables {
    drain_run_seconds = 60
  }
  expect_failures = [terraform_data.drain_bound]
}

run "drain_bound_of_100_seconds" {
  command = plan
  variables {
    drain_run_seconds = 100
  }
  expect_failures = [terraform_data.drain_bound]
}

run "drain_bound_not_positive" {
  command = plan
  variables {
    drain_run_seconds = 0
  }
  expect_failures = [var.drain_run_seconds]
}

run "monitoring" {
  command = apply

  assert {
    condition     = alltrue([for m in google_logging_metric.drain : strcontains(m.filter, "jsonPayload.message=\"drain run\"")])
    error_message = "the metrics come from the drain run's summary line"
  }
  assert {
    condition     = google_monitoring_alert_policy.drain["drain_oldest_due_age"].conditions[0].condition_threshold[0].threshold_value == 300
    error_message = "alert when the oldest due delivery is older than 5 minutes"
  }
  assert {
    condition     = google_monitoring_alert_policy.drain["drain_dead"].conditions[0].condition_threshold[0].threshold_value == 0 && google_monitoring_alert_policy.drain["drain_blocked_keys"].conditions[0].condition_threshold[0].threshold_value == 0
    error_message = "alert on any dead delivery and any blocked key"
  }
  assert {
    condition     = toset(keys(google_monitoring_alert_policy.job_failing)) == toset(["drain", "prune"])
    error_message = "alert when drain or prune fails twice in a row"
  }
}

run "demo_gets_a_seed_job" {
  command = apply
  variables {
    environment = "demo"
  }

  assert {
    condition     = contains(keys(google_cloud_run_v2_job.job), "seed") && google_cloud_run_v2_job.job["seed"].template[0].template[0].service_account == google_service_account.job["seed"].email
    error_message = "a demo environment has the seed job, with its own service account"
  }
  assert {
    condition     = !contains(keys(google_cloud_scheduler_job.job), "seed")
    error_message = "the seed is never scheduled"
  }
}

run "connection_budget_is_enforced" {
  command = plan
  variables {
    function_max_instances = 50
  }
  expect_failures = [terraform_data.connection_budget]
}

run "environment_is_checked" {
  command = plan
  variables {
    environment = "qa"
  }
  expect_failures = [var.environment]
}
