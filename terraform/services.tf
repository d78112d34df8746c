# One Cloud Run service per HTTP function, all from one image, each selecting
# its function with FUNCTION_TARGET (functions/cmd/server serves it at every
# path) and running as its own service account.
#
# Timeout 10 s: a function is one transaction (statement_timeout 5 s here)
# and answers in milliseconds; anything slow is the drain's. Concurrency 20
# with a pool of 2: a request holds a connection for a few milliseconds, so
# 2 connections serve a few hundred requests a second and 20 in flight wait
# at most ~100 ms for one; more concurrency would only queue on the pool.
# Maximum instances: see the connection budget (locals.tf, README.md).
resource "google_cloud_run_v2_service" "function" {
  for_each = local.fn
  name     = each.value.service
  location = var.region
  # Public functions are reached only through the load balancer (hosting.tf);
  # operator functions only with an IAM identity token.
  ingress = each.value.public ? "INGRESS_TRAFFIC_INTERNAL_LOAD_BALANCER" : "INGRESS_TRAFFIC_ALL"
  # The load balancer's serverless NEGs call the public functions without a
  # token: Cloud Run's invoker check is off for them (the documented way for
  # public services; an allUsers binding fails in organisations with
  # domain-restricted sharing). Their ingress still admits only the load
  # balancer, and each function checks the caller's Identity Platform token.
  invoker_iam_disabled = each.value.public
  deletion_protection  = false
  # cloudbuild.yaml deploys every service with this label.
  labels = { lexora-role = "function" }

  # The cap over every revision in the traffic split (Google's recommended
  # place for it; it applies at once, without a new revision). The
  # revision-level cap below still bounds the rollout's candidate, which is
  # tagged but in no split (locals.tf, connection budget).
  scaling {
    max_instance_count = each.value.max_instances
  }

  template {
    service_account                  = google_service_account.function[each.key].email
    timeout                          = "10s"
    max_instance_request_concurrency = 20
    scaling {
      max_instance_count = each.value.max_instances
    }
    containers {
      image = var.image
      resources {
        limits = {
          cpu    = "1"
          memory = "512Mi"
        }
        # CPU only during requests: the connector refreshes lazily.
        cpu_idle = true
      }
      dynamic "env" {
        for_each = merge(local.database_env, {
          FUNCTION_TARGET            = each.key
          DATABASE_URL               = "user=${local.db_user["fn-${each.value.service}"]} dbname=lexora sslmode=disable"
          DATABASE_MAX_CONNS         = tostring(local.conns.function)
          DATABASE_STATEMENT_TIMEOUT = "5s"
          AUTH_PROJECT               = local.auth_project
          CORS_ALLOWED_ORIGIN        = "https://${var.domain}"
        })
        content {
          name  = env.key
          value = env.value
        }
      }
    }
  }

  lifecycle {
    # Cloud Build deploys each build's digest; Terraform owns the rest.
    # deploy/rollout also names each revision, tags the candidate and moves
    # the traffic: all of that is Cloud Build's, not Terraform's.
    ignore_changes = [template[0].containers[0].image, template[0].revision, traffic, client, client_version]
  }
  depends_on = [google_project_iam_member.db_client]
}

# Operators invoke the operator functions and read their services (the
# README's `gcloud run services describe` for the URL needs
# run.services.get, which run.invoker does not include), on those services
# only.
resource "google_cloud_run_v2_service_iam_member" "operator" {
  for_each = { for t in setproduct(local.operator_functions, var.operators, ["roles/run.invoker", "roles/run.viewer"]) : "${t[0]}/${t[1]}/${t[2]}" => { fn = t[0], member = t[1], role = t[2] } }
  name     = google_cloud_run_v2_service.function[each.value.fn].name
  location = var.region
  role     = each.value.role
  member   = each.value.member
}
