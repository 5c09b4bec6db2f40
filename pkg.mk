# Packages from the tree (included by the Makefile): make dist, deb, rpm.
# Both packages build from the one tarball dist makes, with VERSION from
# the Makefile: debian/changelog and rdmactl.spec are written from it, so
# the version is never typed twice.
.PHONY: dist deb rpm pkg-lint

DIST_NAME := rdmactl-$(VERSION)
DIST      := $(BUILD)/$(DIST_NAME).tar.gz
PKG_DIR   := $(BUILD)/pkg
# Who the generated changelog entry names: the Maintainer of debian/control.
DEB_MAINT = $(shell sed -n 's/^Maintainer: //p' debian/control)
# The date of the last commit, so a rebuild of the same tree is the same package.
PKG_EPOCH = $(shell git log -1 --format=%ct 2>/dev/null || date +%s)

# The tracked files as they are in the work tree, and the spec made from
# rpm/rdmactl.spec.in at the top, where rpmbuild -tb looks for it.
dist:
	@mkdir -p $(BUILD)/dist
	rm -rf $(BUILD)/dist/$(DIST_NAME) && mkdir -p $(BUILD)/dist/$(DIST_NAME)
	git ls-files -z | tar --null -T - -cf - | tar -xf - -C $(BUILD)/dist/$(DIST_NAME)
	sed 's/@VERSION@/$(VERSION)/g' rpm/rdmactl.spec.in >$(BUILD)/dist/$(DIST_NAME)/rdmactl.spec
	tar --sort=name --owner=0 --group=0 --numeric-owner --mtime=@$(PKG_EPOCH) \
	  -C $(BUILD)/dist -czf $(DIST) $(DIST_NAME)
	rm -rf $(BUILD)/dist/$(DIST_NAME)

# dpkg-buildpackage -b in an unpacked copy of the tarball, whose
# debian/changelog says VERSION; then lintian, which must stay silent
# (errors and warnings fail; overrides carry their reason).
deb: dist
	rm -rf $(PKG_DIR)/deb && mkdir -p $(PKG_DIR)/deb
	tar -xzf $(DIST) -C $(PKG_DIR)/deb
	printf 'rdmactl (%s) unstable; urgency=medium\n\n  * Built from the rdmactl tree at version %s.\n\n -- %s  %s\n' \
	  '$(VERSION)' '$(VERSION)' '$(DEB_MAINT)' "$$(date -R -u -d @$(PKG_EPOCH))" \
	  >$(PKG_DIR)/deb/$(DIST_NAME)/debian/changelog
	cd $(PKG_DIR)/deb/$(DIST_NAME) && dpkg-buildpackage -b -us -uc
	lintian --fail-on error,warning --info $(PKG_DIR)/deb/rdmactl_$(VERSION)_*.changes
	@ls -1 $(PKG_DIR)/deb/*.deb

# rpmbuild from the tarball, into a topdir of our own.  Debian's rpmbuild
# cannot see RHEL's BuildRequires (rdma-core-devel and the rest are dpkg
# packages here), so this build alone passes --nodeps; on RHEL, rpmbuild
# -tb checks them.  Debian's rpm has no systemd macros: the spec falls
# back to the paths they would give.  The Packager is the Maintainer of
# debian/control, as a build system would set it (not in the spec).
RPM_TOP := $(abspath $(PKG_DIR)/rpm)
rpm: dist
	rm -rf $(RPM_TOP) && mkdir -p $(RPM_TOP)
	rpmbuild -tb --nodeps --define '_topdir $(RPM_TOP)' --define 'packager $(DEB_MAINT)' $(DIST)
	tar -xzf $(DIST) -C $(RPM_TOP) $(DIST_NAME)/rdmactl.spec
	rpmlint -r rpm/rdmactl.rpmlintrc $(RPM_TOP)/$(DIST_NAME)/rdmactl.spec $(RPM_TOP)/RPMS/*/*.rpm
	@ls -1 $(RPM_TOP)/RPMS/*/*.rpm
