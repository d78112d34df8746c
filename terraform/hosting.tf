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
  # The backend bucket honours these: / is index.html, and an object that
  # does not exist answers index.html (with status 404). The URL map below
  # already rewrites every client route to /index.html (status 200); this
  # covers a mistyped asset path.
  website {
    main_page_suffix = "index.html"
    not_found_page   = "index.html"
  }
}

# Cloud CDN fetches the private bucket's objects with its own service agent,
# service-N@cloud-cdn-fill. Google's signed URL documentation says that agent
# is created the first time a signed URL key is added to a backend bucket
# of the project; a binding to it before then fails (the member does not
# exist). Nothing else in the provider creates it (google_project_service_identity
# is google-beta only), so the backend bucket gets a key, which Lexora never
# signs with (Cloud CDN does not require a signature on unsigned requests),
# and the binding waits for it. The key is 16 bytes (base64url, as
# `gcloud compute backend-buckets add-signed-url-key` takes) derived from a
# random UUID made once; it sits in the state, like the API key.
resource "terraform_data" "cdn_key_seed" {
  input = uuid()
  lifecycle {
    ignore_changes = [input]
  }
}

resource "google_compute_backend_bucket_signed_url_key" "web" {
  name           = "lexora-cdn-fill"
  backend_bucket = google_compute_backend_bucket.web.name
  key_value      = replace(replace(base64encode(substr(base64sha256(terraform_data.cdn_key_seed.output), 0, 16)), "+", "-"), "/", "_")
}

resource "google_storage_bucket_iam_member" "cdn_reads_web" {
  bucket     = google_storage_bucket.web.name
  role       = "roles/storage.objectViewer"
  member     = "serviceAccount:service-${data.google_project.this.number}@cloud-cdn-fill.iam.gserviceaccount.com"
  depends_on = [google_compute_backend_bucket_signed_url_key.web]
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
    cache_mode        = "USE_ORIGIN_HEADERS" # /assets/ immutable, every root file (index.html, sw.js) no-cache (cloudbuild.yaml)
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

# The smoke test's way in (deploy/smoke): a request to /Me or /GetSchedule
# with the header X-Lexora-Candidate goes to the revision tagged
# "candidate", which deploy/rollout deploys with no traffic before moving
# traffic to it. The services admit only the load balancer, so the tagged
# run.app URL is not reachable from Cloud Build; this route is.
resource "google_compute_region_network_endpoint_group" "candidate" {
  for_each              = toset(local.smoke_functions)
  name                  = "fn-${local.fn[each.key].service}-candidate"
  region                = var.region
  network_endpoint_type = "SERVERLESS"
  cloud_run {
    service = google_cloud_run_v2_service.function[each.key].name
    tag     = "candidate"
  }
}

locals {
  # The functions deploy/smoke calls, and the header that routes to their candidates.
  smoke_functions  = ["GetSchedule", "Me"]
  candidate_header = "X-Lexora-Candidate"
  # The web client's files outside /assets/: frontend/public, which Vite
  # copies to the bundle's root, and the installable app's manifest and
  # service worker, which vite-plugin-pwa writes there
  # (terraform/hosting_test.go keeps the list in step).
  web_root_files = [
    "/apple-touch-icon.png", "/favicon.ico", "/icon-192.png", "/icon-512.png", "/icon-maskable-512.png",
    "/icon-maskable.svg", "/icon.svg", "/manifest.webmanifest", "/sw.js",
  ]
  backends = merge(
    { for f in local.public_functions : f => { group = google_compute_region_network_endpoint_group.function[f].id, name = "fn-${local.fn[f].service}" } },
    { for f in local.smoke_functions : "${f}/candidate" => { group = google_compute_region_network_endpoint_group.candidate[f].id, name = "fn-${local.fn[f].service}-candidate" } },
  )
}

resource "google_compute_backend_service" "function" {
  for_each              = local.backends
  name                  = each.value.name
  load_balancing_scheme = "EXTERNAL_MANAGED"
  protocol              = "HTTPS"
  security_policy       = google_compute_security_policy.functions.id
  backend {
    group = each.value.group
  }
  log_config {
    enable      = true
    sample_rate = 1
  }
}

# Cloud Armor on every function's backend: each client (by IP address) may
# make var.rate_limit_per_minute requests a minute to the functions; above
# that it gets 429 until its rate falls again, so one client cannot take
# every instance (function_max_instances × 20 concurrent requests) of a
# function. Preconfigured WAF rules are left out: the API takes JSON from
# signed-in users, where their false positives would refuse real reviews.
resource "google_compute_security_policy" "functions" {
  name        = "lexora-functions"
  description = "Per-client rate limit on the Lexora functions"
  type        = "CLOUD_ARMOR"

  rule {
    action   = "throttle"
    priority = 1000
    match {
      versioned_expr = "SRC_IPS_V1"
      config {
        src_ip_ranges = ["*"]
      }
    }
    rate_limit_options {
      conform_action = "allow"
      exceed_action  = "deny(429)"
      enforce_on_key = "IP"
      rate_limit_threshold {
        count        = var.rate_limit_per_minute
        interval_sec = 60
      }
    }
    description = "At most rate_limit_per_minute requests a minute per client IP address"
  }

  rule {
    action   = "allow"
    priority = 2147483647
    match {
      versioned_expr = "SRC_IPS_V1"
      config {
        src_ip_ranges = ["*"]
      }
    }
    description = "Default: allow"
  }
}

# Routes, first match by priority:
#  1. /Me and /GetSchedule with X-Lexora-Candidate: their candidate revision;
#  2. /<FunctionName>: that function's service;
#  3. /assets/... and the bundle's root files: the bucket, as they are;
#  4. anything else (/, /review, /classes/...: the client's routes): the
#     bucket's /index.html, status 200, as functions/cmd/server/static.go
#     does locally.
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

    dynamic "route_rules" {
      for_each = { for i, f in local.smoke_functions : f => i }
      content {
        priority = 1 + route_rules.value
        service  = google_compute_backend_service.function["${route_rules.key}/candidate"].id
        match_rules {
          full_path_match = "/${route_rules.key}"
          header_matches {
            header_name   = local.candidate_header
            present_match = true
          }
        }
      }
    }
    dynamic "route_rules" {
      for_each = { for i, f in local.public_functions : f => i }
      content {
        priority = 100 + route_rules.value
        service  = google_compute_backend_service.function[route_rules.key].id
        match_rules {
          full_path_match = "/${route_rules.key}"
        }
      }
    }
    route_rules {
      priority = 1000
      service  = google_compute_backend_bucket.web.id
      match_rules {
        prefix_match = "/assets/"
      }
      dynamic "match_rules" {
        for_each = toset(local.web_root_files)
        content {
          full_path_match = match_rules.value
        }
      }
    }
    route_rules {
      priority = 1999
      service  = google_compute_backend_bucket.web.id
      match_rules {
        full_path_match = "/"
      }
      route_action {
        url_rewrite {
          path_prefix_rewrite = "/index.html"
        }
      }
    }
    route_rules {
      priority = 2000
      service  = google_compute_backend_bucket.web.id
      match_rules {
        path_template_match = "/{path=**}"
      }
      route_action {
        url_rewrite {
          path_template_rewrite = "/index.html"
        }
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

# TLS 1.2 or later with the MODERN profile's ciphers (the default policy
# allows TLS 1.0).
resource "google_compute_ssl_policy" "app" {
  name            = "lexora"
  profile         = "MODERN"
  min_tls_version = "TLS_1_2"
}

resource "google_compute_target_https_proxy" "app" {
  name             = "lexora"
  url_map          = google_compute_url_map.https.id
  ssl_certificates = [google_compute_managed_ssl_certificate.app.id]
  ssl_policy       = google_compute_ssl_policy.app.id
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

# The web client's Identity Platform API key (VITE_FIREBASE_API_KEY, through
# cloudbuild.yaml's _FIREBASE_API_KEY): an API key identifies the project to
# Identity Platform and is public by design (it is in the bundle); it is
# restricted to the sign-in APIs and to the app's origin. deploy/smoke sends
# that origin as its Referer.
resource "google_apikeys_key" "web" {
  project      = local.auth_project
  name         = "lexora-web"
  display_name = "Lexora web client (Identity Platform sign-in)"
  restrictions {
    api_targets {
      service = "identitytoolkit.googleapis.com"
    }
    api_targets {
      service = "securetoken.googleapis.com"
    }
    browser_key_restrictions {
      allowed_referrers = length(var.web_allowed_referrers) > 0 ? var.web_allowed_referrers : ["https://${var.domain}/*"]
    }
  }
}

# Identity Platform in the environment's own project: created, it enables
# Identity Platform (initializeAuth, the console's "Enable"), then sets
# email/password sign-in (the rollout's smoke account, deploy/first-accounts)
# and the domains allowed for OAuth redirects: the app's, and the auth
# domain the web client signs in through. Google sign-in stays a console
# step: its provider needs an OAuth client and its secret, which would sit in
# the state. With var.auth_project naming another project, that project's
# owners manage it and nothing is made here. An environment enabled in the
# console before this resource existed imports it first (README, "A new
# environment from nothing").
resource "google_identity_platform_config" "auth" {
  count              = local.auth_project == var.project_id ? 1 : 0
  project            = var.project_id
  authorized_domains = [var.domain, "${var.project_id}.firebaseapp.com"]
  sign_in {
    allow_duplicate_emails = false
    email {
      enabled           = true
      password_required = true
    }
  }
}
