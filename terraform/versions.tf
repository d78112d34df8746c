terraform {
  required_version = ">= 1.11"
  required_providers {
    google = {
      source  = "hashicorp/google"
      version = "~> 8.0"
    }
  }
  # State lives in a GCS bucket created once per environment (see README.md):
  #   terraform init -backend-config="bucket=<project>-tfstate"
  backend "gcs" {
    prefix = "lexora"
  }
}

provider "google" {
  project = var.project_id
  region  = var.region
  # With a user's Application Default Credentials (README, "A new
  # environment from nothing"), apikeys.googleapis.com and
  # identitytoolkit.googleapis.com refuse requests without a quota project
  # (403 "... API requires a quota project, which is not set by default"):
  # bill every request to this environment's project.
  user_project_override = true
  billing_project       = var.project_id
}

data "google_project" "this" {}
