output "load_balancer_ip" {
  description = "Point the domain's A record here; the managed certificate is issued once it resolves."
  value       = google_compute_global_address.lb.address
}

output "url" {
  description = "The one origin of the web client and the API."
  value       = "https://${var.domain}"
}

output "sql_connection_name" {
  description = "DATABASE_INSTANCE for the connector (and for the Cloud SQL Auth Proxy)."
  value       = google_sql_database_instance.main.connection_name
}

output "image_repository" {
  description = "KO_DOCKER_REPO for Cloud Build."
  value       = "${var.region}-docker.pkg.dev/${var.project_id}/${google_artifact_registry_repository.images.repository_id}"
}

output "web_bucket" {
  description = "Where Cloud Build publishes the web client."
  value       = google_storage_bucket.web.name
}

output "cloudbuild_service_account" {
  description = "The service account the Cloud Build trigger runs as."
  value       = google_service_account.build.email
}

output "function_services" {
  description = "Function name => Cloud Run service name."
  value       = { for f, s in google_cloud_run_v2_service.function : f => s.name }
}

output "connection_budget" {
  description = "Connections each kind of workload may open at most, and the total against max_connections."
  value       = merge(local.connection_budget, { total = local.connections_needed, max_connections = var.sql_max_connections })
}

output "build_source_bucket" {
  description = "gcloud builds submit --gcs-source-staging-dir=gs://<this>/source"
  value       = google_storage_bucket.build_source.name
}

output "web_api_key" {
  description = "The web client's Identity Platform API key (cloudbuild.yaml's _FIREBASE_API_KEY)."
  value       = google_apikeys_key.web.key_string
  sensitive   = true
}

output "build_substitutions" {
  description = "Every cloudbuild.yaml substitution this environment needs, for the trigger or `gcloud builds submit --substitutions=$(terraform output -raw build_substitutions)`."
  value = join(",", [for k, v in {
    _REGION               = var.region
    _REPO                 = google_artifact_registry_repository.images.repository_id
    _WEB_BUCKET           = google_storage_bucket.web.name
    _DOMAIN               = var.domain
    _AUTH_PROJECT         = local.auth_project
    _FIREBASE_API_KEY     = google_apikeys_key.web.key_string
    _FIREBASE_AUTH_DOMAIN = "${local.auth_project}.firebaseapp.com"
    _GIT_URL              = var.git_url
  } : "${k}=${v}"])
  sensitive = true
}
