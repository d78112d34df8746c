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
  oncall_email    = "oncall@lexora.test"
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
    condition = alltrue([for f in local.functions :
      google_cloud_run_v2_service.function[f].invoker_iam_disabled == !contains(local.operator_functions, f)
    ])
    error_message = "the public functions (and only those) skip Cloud Run's invoker check, for the load balancer; operator functions keep it"
  }
  assert {
    condition     = alltrue([for m in google_cloud_run_v2_service_iam_member.operator : m.member != "allUsers" && m.member != "allAuthenticatedUsers"])
    error_message = "operator functions are invoked only by the operators; no allUsers binding anywhere"
  }
  assert {
    condition = alltrue([for f in local.operator_functions :
      toset([for m in google_cloud_run_v2_service_iam_member.operator : m.role if m.name == google_cloud_run_v2_service.function[f].name]) == toset(["roles/run.invoker", "roles/run.viewer"])
    ])
    error_message = "operators may invoke each operator function and read its service (for its URL), nothing more"
  }
  assert {
    condition     = contains(google_project_iam_custom_role.job_operator.permissions, "run.jobs.runWithOverrides") && alltrue([for m in google_cloud_run_v2_job_iam_member.operator : m.role == google_project_iam_custom_role.job_operator.name && contains(["drain", "prune", "fit", "outboxctl"], m.name)]) && contains([for m in google_cloud_run_v2_job_iam_member.operator : m.name], "outboxctl")
    error_message = "operators may execute drain, prune and outboxctl with overrides (README's drain by hand), on those jobs only"
  }
  assert {
    condition = alltrue([for f in local.public_functions :
      google_cloud_run_v2_service.function[f].ingress == "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER"
    ])
    error_message = "public functions admit only the load balancer"
  }
  assert {
    condition = toset([for r in google_compute_url_map.https.path_matcher[0].route_rules : r.match_rules[0].full_path_match
      if r.service != google_compute_backend_bucket.web.id && length(r.match_rules[0].header_matches) == 0
    ]) == toset([for f in local.public_functions : "/${f}"])
    error_message = "the load balancer routes exactly the public functions, at /<FunctionName>"
  }
  assert {
    condition = alltrue([for f in local.public_functions : one([for r in google_compute_url_map.https.path_matcher[0].route_rules : r.service
      if r.match_rules[0].full_path_match == "/${f}" && length(r.match_rules[0].header_matches) == 0
    ]) == google_compute_backend_service.function[f].id])
    error_message = "each function's path goes to its own backend"
  }
  assert {
    condition     = google_storage_bucket.web.public_access_prevention == "enforced" && google_storage_bucket_iam_member.cdn_reads_web.member == "serviceAccount:service-123456789012@cloud-cdn-fill.iam.gserviceaccount.com"
    error_message = "the web bucket is private; only Cloud CDN reads it"
  }
}

# The web client: / and every client route (a path without a file
# extension) answer the bucket's /index.html; the hashed assets and the root
# files are served as they are; functions win over the catch-all.
run "web_client_routes" {
  command = apply

  assert {
    condition = one([for r in google_compute_url_map.https.path_matcher[0].route_rules : r
      if r.match_rules[0].path_template_match == "/{path=**}"
    ]).route_action[0].url_rewrite[0].path_template_rewrite == "/index.html"
    error_message = "every path not matched before is rewritten to /index.html (client routes such as /review, /classes/...)"
  }
  assert {
    condition = one([for r in google_compute_url_map.https.path_matcher[0].route_rules : r
      if r.match_rules[0].full_path_match == "/"
    ]).route_action[0].url_rewrite[0].path_prefix_rewrite == "/index.html"
    error_message = "/ is /index.html"
  }
  assert {
    condition = alltrue([for r in google_compute_url_map.https.path_matcher[0].route_rules :
      r.service == google_compute_backend_bucket.web.id && length(r.route_action) == 0
      if anytrue([for m in r.match_rules : m.prefix_match == "/assets/"])
    ]) && length([for r in google_compute_url_map.https.path_matcher[0].route_rules : r if anytrue([for m in r.match_rules : m.prefix_match == "/assets/" || m.full_path_match == "/favicon.ico" || m.full_path_match == "/sw.js" || m.full_path_match == "/manifest.webmanifest"])]) == 1
    error_message = "/assets/ and the bundle's root files (the service worker and the manifest too) are served as they are"
  }
  assert {
    condition = alltrue([for r in google_compute_url_map.https.path_matcher[0].route_rules :
      r.priority > max([for q in google_compute_url_map.https.path_matcher[0].route_rules : q.priority if q.service != google_compute_backend_bucket.web.id]...)
      if r.service == google_compute_backend_bucket.web.id
    ])
    error_message = "the functions' routes come before the bucket's"
  }
  assert {
    condition     = google_storage_bucket.web.website[0].main_page_suffix == "index.html" && google_storage_bucket.web.website[0].not_found_page == "index.html"
    error_message = "the bucket itself answers index.html for / and for a missing object"
  }
  assert {
    condition = alltrue([for f in local.smoke_functions : one([for r in google_compute_url_map.https.path_matcher[0].route_rules : r.service
      if r.match_rules[0].full_path_match == "/${f}" && length(r.match_rules[0].header_matches) == 1
    ]) == google_compute_backend_service.function["${f}/candidate"].id && google_compute_region_network_endpoint_group.candidate[f].cloud_run[0].tag == "candidate"])
    error_message = "the smoke test reaches Me's and GetSchedule's candidate revisions with X-Lexora-Candidate"
  }
}

run "hardening" {
  command = apply

  assert {
    condition     = google_compute_target_https_proxy.app.ssl_policy == google_compute_ssl_policy.app.id && google_compute_ssl_policy.app.min_tls_version == "TLS_1_2" && contains(["MODERN", "RESTRICTED"], google_compute_ssl_policy.app.profile)
    error_message = "the load balancer speaks TLS 1.2 or later, MODERN or RESTRICTED"
  }
  assert {
    condition     = alltrue([for b in google_compute_backend_service.function : b.security_policy == google_compute_security_policy.functions.id])
    error_message = "every function backend is behind Cloud Armor"
  }
  assert {
    condition = anytrue([for o in flatten([for r in google_compute_security_policy.functions.rule : r.rate_limit_options if r.action == "throttle"]) :
      o.enforce_on_key == "IP" && o.exceed_action == "deny(429)" && o.rate_limit_threshold[0].count == var.rate_limit_per_minute
    ])
    error_message = "Cloud Armor limits each client IP address's rate"
  }
  assert {
    condition     = toset(google_project_iam_custom_role.database_client.permissions) == toset(["cloudsql.instances.connect", "cloudsql.instances.get", "cloudsql.instances.login"])
    error_message = "workloads get only what the connector needs: no cloudsql.instances.executeSql (the Data API)"
  }
  assert {
    condition = alltrue([for m in google_project_iam_member.db_client : m.role == google_project_iam_custom_role.database_client.name]) && length(google_project_iam_member.db_client) == length(local.db_accounts) && !anytrue(flatten([
      [for m in google_project_iam_member.db_client : contains(["roles/cloudsql.instanceUser", "roles/cloudsql.client"], m.role)],
      [for m in google_project_iam_member.build : m.role == "roles/run.developer"],
    ]))
    error_message = "no workload holds cloudsql.instanceUser or cloudsql.client, and Cloud Build has no project-wide run.developer"
  }
  assert {
    condition     = toset(keys(google_cloud_run_v2_service_iam_member.build)) == toset(local.functions) && toset(keys(google_cloud_run_v2_job_iam_member.build)) == toset(keys(local.jobs)) && alltrue([for m in concat(values(google_cloud_run_v2_service_iam_member.build), values(google_cloud_run_v2_job_iam_member.build)) : m.role == "roles/run.developer"])
    error_message = "Cloud Build may deploy exactly the function services and the jobs"
  }
  assert {
    condition     = alltrue([for j in google_cloud_run_v2_job.job : j.template[0].template[0].containers[0].image == "us-docker.pkg.dev/cloudrun/container/job"])
    error_message = "until the first build, the jobs run a placeholder that exits at once"
  }
  assert {
    condition     = toset([for m in google_project_iam_member.operator_reads : m.role]) == toset(["roles/logging.viewer", "roles/monitoring.viewer", "roles/cloudbuild.builds.viewer"]) && alltrue([for m in google_project_iam_member.operator_reads : m.member == "group:oncall@lexora.test"])
    error_message = "the on-call group reads logs, metrics and builds"
  }
  assert {
    condition     = keys(google_project_iam_member.on_call) == ["group:oncall@lexora.test"] && google_project_iam_member.on_call["group:oncall@lexora.test"].role == google_project_iam_custom_role.on_call.name && toset(google_project_iam_custom_role.on_call.permissions) == toset(["cloudscheduler.jobs.enable", "cloudscheduler.jobs.get", "cloudscheduler.jobs.list", "cloudscheduler.locations.list", "compute.sslCertificates.get", "compute.sslCertificates.list", "run.executions.get", "run.executions.list"])
    error_message = "the on-call group reads and resumes the scheduler's jobs, lists job executions and reads the certificate, nothing more"
  }
  assert {
    condition     = length(google_project_iam_member.deployer) == 0 && length(google_cloud_run_v2_service_iam_member.deployer) == 0 && length(google_cloud_run_v2_job_iam_member.deployer) == 0 && length(google_service_account_iam_member.deployer_acts_as_runtime) == 0 && !anytrue([for m in concat(values(google_cloud_run_v2_service_iam_member.operator), values(google_cloud_run_v2_job_iam_member.operator)) : m.role == "roles/run.developer"])
    error_message = "without deployers nobody but Cloud Build deploys: the on-call group cannot roll back"
  }
  assert {
    condition     = keys(google_service_account_iam_member.submits_as_build) == ["terraform_admin"] && google_service_account_iam_member.submits_as_build["terraform_admin"].member == "user:platform@lexora.test" && google_service_account_iam_member.submits_as_build["terraform_admin"].role == "roles/iam.serviceAccountUser" && google_storage_bucket_iam_member.releases_reader["group:oncall@lexora.test"].role == "roles/storage.objectViewer"
    error_message = "terraform_admin submits the first build as Cloud Build's account (Terraform grants it, not a gcloud command); the on-call group lists the releases"
  }
}

run "cdn_fill_agent" {
  assert {
    condition     = google_compute_backend_bucket_signed_url_key.web.backend_bucket == google_compute_backend_bucket.web.name && length(google_compute_backend_bucket_signed_url_key.web.key_value) == 24 && can(regex("^[A-Za-z0-9_-]{22}==$", google_compute_backend_bucket_signed_url_key.web.key_value))
    error_message = "the web backend bucket has a 16-byte base64url signed URL key, so Cloud CDN's fill agent exists before the bucket binding to it"
  }
}

run "deployers_roll_back" {
  variables {
    deployers = ["group:platform@lexora.test"]
  }
  assert {
    condition     = toset(keys(google_cloud_run_v2_service_iam_member.deployer)) == toset([for f in local.functions : "${f}/group:platform@lexora.test"]) && toset(keys(google_cloud_run_v2_job_iam_member.deployer)) == toset([for j in keys(local.jobs) : "${j}/group:platform@lexora.test"]) && alltrue([for m in concat(values(google_cloud_run_v2_service_iam_member.deployer), values(google_cloud_run_v2_job_iam_member.deployer)) : m.role == "roles/run.developer"])
    error_message = "deployers have run.developer on each service and job, as Cloud Build, never on the project"
  }
  assert {
    condition     = length(google_service_account_iam_member.deployer_acts_as_runtime) == length(local.functions) + length(local.db_jobs) && toset([for m in google_project_iam_member.deployer : m.role]) == toset([google_project_iam_custom_role.build_lister.name, "roles/cloudbuild.builds.editor"]) && contains(keys(google_service_account_iam_member.submits_as_build), "group:platform@lexora.test") && contains(keys(google_storage_bucket_iam_member.releases_reader), "group:platform@lexora.test")
    error_message = "deployers act as the runtime accounts, list services and jobs, read the releases and may re-run a build"
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
    condition     = toset([for m in google_cloud_run_v2_job_iam_member.scheduler : m.name]) == toset(["drain", "prune", "fit"]) && alltrue([for m in google_cloud_run_v2_job_iam_member.scheduler : m.role == "roles/run.invoker" && m.member == "serviceAccount:${google_service_account.scheduler.email}"])
    error_message = "the scheduler may run the drain, prune and fit jobs"
  }
  assert {
    condition = !contains(flatten([
      [for m in google_project_iam_member.db_client : m.member],
      [for m in google_cloud_run_v2_job_iam_member.build : m.member],
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

# The fit job (jobs/fit, pkg/fitting): scheduled every 30 minutes by the
# scheduler's account, bounded inside its task timeout and below the
# period, tasks split by var.fit_tasks, its own service account with a
# database login, an alert on failure.
run "fit_job" {
  command = apply

  variables {
    fit_tasks = 3
  }

  assert {
    condition     = google_cloud_scheduler_job.job["fit"].schedule == "*/30 * * * *" && google_cloud_scheduler_job.job["fit"].http_target[0].uri == "https://run.googleapis.com/v2/projects/lexora-test/locations/europe-west1/jobs/fit:run" && google_cloud_scheduler_job.job["fit"].http_target[0].oauth_token[0].service_account_email == google_service_account.scheduler.email
    error_message = "the scheduler starts the fit job every 30 minutes with its OAuth token"
  }
  assert {
    condition     = google_cloud_run_v2_job.job["fit"].template[0].task_count == 3 && google_cloud_run_v2_job.job["fit"].template[0].parallelism == 3 && google_cloud_run_v2_job.job["fit"].template[0].template[0].max_retries == 0
    error_message = "var.fit_tasks parallel tasks, no retry (the next execution is the retry)"
  }
  assert {
    condition     = tonumber(trimsuffix(one([for e in google_cloud_run_v2_job.job["fit"].template[0].template[0].containers[0].env : e.value if e.name == "FIT_MAX_DURATION"]), "m")) * 60 + 60 < tonumber(trimsuffix(google_cloud_run_v2_job.job["fit"].template[0].template[0].timeout, "s")) && tonumber(trimsuffix(google_cloud_run_v2_job.job["fit"].template[0].template[0].timeout, "s")) <= 1800
    error_message = "a fit run's bound, plus one learner's fit, fits in the task timeout, itself within the 30-minute period"
  }
  assert {
    condition     = one([for e in google_cloud_run_v2_job.job["fit"].template[0].template[0].containers[0].env : e.value if e.name == "FIT_MAX_LEARNERS"]) == "500"
    error_message = "a fit run is bounded in learners too"
  }
  assert {
    condition     = google_cloud_run_v2_job.job["fit"].template[0].template[0].service_account == google_service_account.job["fit"].email && contains(keys(local.db_accounts), "job-fit")
    error_message = "the fit job runs as its own service account, which logs in to the database"
  }
  assert {
    condition     = contains(keys(google_monitoring_alert_policy.job_failing), "fit") && strcontains(google_monitoring_alert_policy.job_failing["fit"].documentation[0].content, "fit-failing")
    error_message = "a failing fit job alerts, linking to its runbook section"
  }
  assert {
    condition     = local.connection_budget.fit == 2 * 3 * local.conns.fit
    error_message = "overlapping fit executions count in the connection budget"
  }
}

run "secrets" {
  command = apply

  assert {
    condition = alltrue([for s in keys(google_secret_manager_secret.secret) :
      toset([for a in google_secret_manager_secret_iam_member.accessor : a.member if a.secret_id == google_secret_manager_secret.secret[s].id]) == toset([startswith(s, "smtp-") ? "serviceAccount:${google_service_account.job["drain"].email}" : "serviceAccount:${google_service_account.build.email}"])
    ])
    error_message = "each SMTP secret is readable by the drain's service account and no one else; the smoke account's by Cloud Build only"
  }
  assert {
    condition     = alltrue([for a in google_secret_manager_secret_iam_member.accessor : a.role == "roles/secretmanager.secretAccessor"])
    error_message = "secret access is read-only"
  }
  assert {
    condition     = toset([for e in google_cloud_run_v2_job.job["drain"].template[0].template[0].containers[0].env : e.value_source[0].secret_key_ref[0].secret if length(e.value_source) > 0]) == toset(["smtp-username", "smtp-password"]) && alltrue(flatten([for j, job in google_cloud_run_v2_job.job : [for e in job.template[0].template[0].containers[0].env : j == "drain" if length(e.value_source) > 0]]))
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
    condition     = length(google_sql_user.workload) == length(local.functions) + 5 && alltrue([for u in google_sql_user.workload : u.type == "CLOUD_IAM_SERVICE_ACCOUNT"])
    error_message = "one IAM database user per workload (functions, drain, prune, fit, migrate, outboxctl)"
  }
  assert {
    condition     = google_sql_database_instance.main.settings[0].data_api_access == "DISALLOW_DATA_API"
    error_message = "the instance denies the Data API: no SQL over the Admin API for any holder of cloudsql.instances.executeSql"
  }
  assert {
    condition     = alltrue([for k, u in google_sql_user.workload : k == "job-migrate" ? tolist(u.database_roles) == tolist(["cloudsqlsuperuser"]) : try(length(u.database_roles), 0) == 0])
    error_message = "of the workloads only the migrate job's database user is in cloudsqlsuperuser (given through the Admin API): it makes the roles and memberships"
  }
  assert {
    condition     = local.provision_env.MIGRATE_PROVISION_AS == "cloudsqlsuperuser" && local.provision_env.MIGRATE_DATABASE_SETTINGS == "idle_in_transaction_session_timeout:60s,statement_timeout:30s"
    error_message = "the migrate job acts as cloudsqlsuperuser and sets the database's timeouts (name:value, as jobs/migrate reads them)"
  }
  assert {
    condition     = alltrue([for k, v in local.provision_env : { for e in google_cloud_run_v2_job.job["migrate"].template[0].template[0].containers[0].env : e.name => e.value }[k] == v]) && { for e in google_cloud_run_v2_job.job["migrate"].template[0].template[0].containers[0].env : e.name => e.value }["MIGRATE_GRANT_ROLE"] == "lexora_app" && { for e in google_cloud_run_v2_job.job["migrate"].template[0].template[0].containers[0].env : e.name => e.value }["MIGRATE_OUTBOX_OWNER"] == "lexora_outbox_owner"
    error_message = "the migrate job's environment carries the provisioning"
  }
  assert {
    condition     = contains(split(",", local.provision_env.MIGRATE_APP_MEMBERS), trimsuffix(google_service_account.function["SubmitReview"].email, ".gserviceaccount.com")) && contains(split(",", local.provision_env.MIGRATE_APP_MEMBERS), "platform@lexora.test") && length(split(",", local.provision_env.MIGRATE_APP_MEMBERS)) == length(google_sql_user.workload)
    error_message = "every workload but the migrate job, and terraform_admin (deploy/first-accounts), is in lexora_app"
  }
  assert {
    condition     = !contains(split(",", local.provision_env.MIGRATE_APP_MEMBERS), trimsuffix(google_service_account.job["migrate"].email, ".gserviceaccount.com"))
    error_message = "the migrate job owns the schema and is not in lexora_app"
  }
  assert {
    condition     = split(",", local.provision_env.MIGRATE_OUTBOX_MEMBERS) == tolist([for j in ["migrate", "prune"] : trimsuffix(google_service_account.job[j].email, ".gserviceaccount.com")])
    error_message = "the migrate and prune jobs, and no other workload, are in lexora_outbox_owner: prune may VACUUM the outbox tables the migrate job gives it"
  }
  assert {
    condition     = split(",", local.provision_env.MIGRATE_SCHEMA_CREATE) == tolist([trimsuffix(google_service_account.job["migrate"].email, ".gserviceaccount.com"), "lexora_outbox_owner"])
    error_message = "the migrate job's user and lexora_outbox_owner may create in schema public"
  }
  assert {
    condition     = { for e in google_cloud_run_v2_job.job["migrate"].template[0].template[0].containers[0].env : e.name => e.value }["PGOPTIONS"] == "-c lock_timeout=10s" && { for e in google_cloud_run_v2_job.job["migrate"].template[0].template[0].containers[0].env : e.name => e.value }["DATABASE_STATEMENT_TIMEOUT"] == "10m"
    error_message = "the migrate job asks for its own statement and lock timeouts at start-up"
  }
  assert {
    condition     = output.connection_budget.total <= var.sql_max_connections - var.sql_operator_connections
    error_message = "the workloads' connections fit under max_connections"
  }
  assert {
    condition     = output.connection_budget.functions == 2 * (25 * 4 * 2 + 14 * 1 * 2 + 4 * 1 * 2) && output.connection_budget.total == 534
    error_message = "each function service counts two revisions (serving and the rollout's candidate): 472 for the functions (25 public, 14 authoring, 4 operator), 534 in all"
  }
  assert {
    condition     = alltrue([for f, s in google_cloud_run_v2_service.function : s.scaling[0].max_instance_count == local.fn[f].max_instances && s.template[0].scaling[0].max_instance_count == local.fn[f].max_instances])
    error_message = "each service is capped at the service level (every revision in the split) and per revision (the tagged candidate)"
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
    condition     = alltrue([for m in google_logging_metric.drain_counter : strcontains(m.filter, "jsonPayload.message=\"drain run\"") && m.metric_descriptor[0].value_type == "INT64"])
    error_message = "the alerts' metrics count drain runs (summary lines)"
  }
  assert {
    condition     = strcontains(google_logging_metric.drain_counter["drain_dead_runs"].filter, "jsonPayload.dead_deliveries > 0") && strcontains(google_logging_metric.drain_counter["drain_block_runs"].filter, "jsonPayload.blocked_keys > 0") && strcontains(google_logging_metric.drain_counter["drain_late_runs"].filter, "jsonPayload.report.oldest_pending_age_seconds > 300")
    error_message = "counters of runs with dead deliveries, blocked keys, a due delivery older than 5 minutes"
  }
  assert {
    condition = alltrue([for k, p in google_monitoring_alert_policy.drain :
      p.conditions[0].condition_threshold[0].threshold_value == 0 && p.conditions[0].condition_threshold[0].aggregations[0].per_series_aligner == "ALIGN_SUM" &&
      strcontains(p.conditions[0].condition_threshold[0].filter, google_logging_metric.drain_counter[local.drain_alerts[k][0]].name)
    ])
    error_message = "the dead, blocked and late alerts fire on any counted run in 5 minutes"
  }
  assert {
    condition     = google_monitoring_alert_policy.drain_not_running.conditions[0].condition_absent[0].duration == "300s" && strcontains(google_monitoring_alert_policy.drain_not_running.conditions[0].condition_absent[0].filter, "lexora/drain_runs")
    error_message = "a drain that stops running raises an alert"
  }
  assert {
    condition     = toset(keys(google_monitoring_alert_policy.job_failing)) == toset(["drain", "prune", "fit", "migrate"])
    error_message = "alert when drain or prune fails twice in a row, or a migration fails"
  }
  assert {
    condition = alltrue([for p in concat(values(google_monitoring_alert_policy.drain), values(google_monitoring_alert_policy.job_failing), values(google_monitoring_alert_policy.query), values(google_monitoring_alert_policy.uptime), values(google_monitoring_alert_policy.slo_burn), [google_monitoring_alert_policy.drain_not_running, google_monitoring_alert_policy.build_failed]) :
      startswith(p.documentation[0].content, "Runbook: https://github.com/lexora-app/lexora/blob/main/docs/runbook.md#") && length(p.notification_channels) > 0
    ])
    error_message = "every alert links to its runbook section and notifies someone"
  }
  assert {
    condition     = toset(keys(google_monitoring_alert_policy.query)) == toset(["function_5xx", "function_latency", "sql_cpu", "sql_memory", "sql_disk", "sql_connections"]) && strcontains(google_monitoring_alert_policy.query["function_5xx"].conditions[0].condition_prometheus_query_language[0].query, "sum by (service_name)")
    error_message = "5xx and latency per function; Cloud SQL CPU, memory, disk and connections"
  }
  assert {
    condition     = google_monitoring_uptime_check_config.web.http_check[0].validate_ssl && google_monitoring_uptime_check_config.web.monitored_resource[0].labels.host == "app.lexora.test" && toset(keys(google_monitoring_alert_policy.uptime)) == toset(["uptime", "certificate"])
    error_message = "an uptime check of the web client, with its certificate"
  }
  assert {
    condition     = toset(keys(google_monitoring_slo.slo)) == toset(["slo_submit_review", "slo_submit_latency", "slo_freshness"]) && alltrue([for p in google_monitoring_alert_policy.slo_burn : length(p.conditions) == 2 && alltrue([for c in p.conditions : startswith(c.condition_threshold[0].filter, "select_slo_burn_rate(")])])
    error_message = "SLOs for SubmitReview availability and latency and delivery freshness, each with a two-window burn-rate alert"
  }
  assert {
    condition     = length(google_monitoring_notification_channel.oncall) == 1 && google_monitoring_notification_channel.oncall["oncall@lexora.test"].labels.email_address == "oncall@lexora.test"
    error_message = "the on-call email is a notification channel"
  }
}

# In prod, alerts must reach someone.
run "prod_alerts_need_a_channel" {
  command = plan
  variables {
    oncall_email = ""
  }
  expect_failures = [var.alert_notification_channels]
}

run "staging_may_alert_nobody" {
  command = plan
  variables {
    environment  = "staging"
    oncall_email = ""
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

# Identity Platform is Terraform in the environment's own project: enabled,
# email/password sign-in for the smoke account, the app's domain authorized.
run "identity_platform" {
  command = apply

  assert {
    condition     = length(google_identity_platform_config.auth) == 1 && google_identity_platform_config.auth[0].project == var.project_id
    error_message = "the environment's own project gets its Identity Platform configuration"
  }
  assert {
    condition     = google_identity_platform_config.auth[0].sign_in[0].email[0].enabled && google_identity_platform_config.auth[0].sign_in[0].email[0].password_required
    error_message = "email/password sign-in, for the rollout's smoke account (deploy/first-accounts)"
  }
  assert {
    condition     = contains(google_identity_platform_config.auth[0].authorized_domains, var.domain) && contains(google_identity_platform_config.auth[0].authorized_domains, "lexora-test.firebaseapp.com")
    error_message = "the app's domain and the auth domain are authorized for OAuth redirects"
  }
}

# Another project's Identity Platform is that project's: nothing made here.
run "identity_platform_elsewhere" {
  command = plan
  variables {
    auth_project = "lexora-shared-auth"
  }

  assert {
    condition     = length(google_identity_platform_config.auth) == 0
    error_message = "with auth_project naming another project, its Identity Platform is left to it"
  }
}
