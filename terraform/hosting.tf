# The web client and the API under one HTTPS origin (https://var.domain): an
# external Application Load Balancer whose URL map sends /<FunctionName> to
# that function's Cloud Run service (a serverless NEG each) and everything
# else to the web client's bucket (Cloud CDN). Why not Firebase Hosting: the
# Google provider cannot manage Hosting rewrites or releases (google-beta
# only, and the content is uploaded by the firebase CLI), so the routing
# would live outside Terraform and outside terraform test; Hosting also needs
# every rewritten service open to the internet, where the load balancer lets
# the services admit only the load balancer (ingress), and the bucket stay
# private. The cost is the forwarding rule (about 18 USD a month).

resource "google_storage_bucket" "web" {
  name                        = "${var.project_id}-web"
  location                    = var.region
  uniform_bucket_level_access = true
  public_access_prevention    = "enforced"
  force_destroy               = false
}

# Cloud CDN fetches the private bucket's objects with its own service agent.
resource "google_storage_bucket_iam_member" "cdn_reads_web" {
  bucket = google_storage_bucket.web.name
  role   = "roles/storage.objectViewer"
  member = "serviceAccount:service-${data.google_project.this.number}@cloud-cdn-fill.iam.gserviceaccount.com"
}

resource "google_storage_bucket_iam_member" "build_publishes_web" {
  bucket = google_storage_bucket.web.name
  role   = "roles/storage.objectAdmin"
  member = "serviceAccount:${google_service_account.build.email}"
}

resource "google_compute_backend_bucket" "web" {
  name        = "lexora-web"
  bucket_name = google_storage_bucket.web.name
  enable_cdn  = true
  cdn_policy {
    cache_mode        = "USE_ORIGIN_HEADERS" # index.html no-cache, hashed assets immutable (cloudbuild.yaml)
    negative_caching  = false
    serve_while_stale = 0
  }
}

resource "google_compute_region_network_endpoint_group" "function" {
  for_each              = toset(local.public_functions)
  name                  = "fn-${local.fn[each.key].service}"
  region                = var.region
  network_endpoint_type = "SERVERLESS"
  cloud_run {
    service = google_cloud_run_v2_service.function[each.key].name
  }
}

resource "google_compute_backend_service" "function" {
  for_each              = toset(local.public_functions)
  name                  = "fn-${local.fn[each.key].service}"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  protocol              = "HTTPS"
  backend {
    group = google_compute_region_network_endpoint_group.function[each.key].id
  }
  log_config {
    enable      = true
    sample_rate = 1
  }
}

resource "google_compute_url_map" "https" {
  name            = "lexora"
  default_service = google_compute_backend_bucket.web.id
  host_rule {
    hosts        = [var.domain]
    path_matcher = "app"
  }
  path_matcher {
    name            = "app"
    default_service = google_compute_backend_bucket.web.id
    # The functions where the web client finds them locally: /<FunctionName>.
    dynamic "path_rule" {
      for_each = toset(local.public_functions)
      content {
        paths   = ["/${path_rule.value}"]
        service = google_compute_backend_service.function[path_rule.value].id
      }
    }
  }
}

resource "google_compute_global_address" "lb" {
  name = "lexora"
}

resource "google_compute_managed_ssl_certificate" "app" {
  name = "lexora"
  managed {
    domains = [var.domain]
  }
}

resource "google_compute_target_https_proxy" "app" {
  name             = "lexora"
  url_map          = google_compute_url_map.https.id
  ssl_certificates = [google_compute_managed_ssl_certificate.app.id]
}

# Plain HTTP only redirects to HTTPS.
resource "google_compute_url_map" "redirect" {
  name = "lexora-redirect"
  default_url_redirect {
    https_redirect         = true
    strip_query            = false
    redirect_response_code = "MOVED_PERMANENTLY_DEFAULT"
  }
}

resource "google_compute_target_http_proxy" "redirect" {
  name    = "lexora-redirect"
  url_map = google_compute_url_map.redirect.id
}

# The load balancer's two entrances on its one address: HTTPS to the app,
# plain HTTP to the redirect.
resource "google_compute_global_forwarding_rule" "lb" {
  for_each = {
    https = { port = "443", target = google_compute_target_https_proxy.app.id }
    http  = { port = "80", target = google_compute_target_http_proxy.redirect.id }
  }
  name                  = "lexora-${each.key}"
  load_balancing_scheme = "EXTERNAL_MANAGED"
  ip_address            = google_compute_global_address.lb.id
  port_range            = each.value.port
  target                = each.value.target
}

moved {
  from = google_compute_global_forwarding_rule.https
  to   = google_compute_global_forwarding_rule.lb["https"]
}

moved {
  from = google_compute_global_forwarding_rule.http
  to   = google_compute_global_forwarding_rule.lb["http"]
}
